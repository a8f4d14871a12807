# Sourced by the benches that run on real AIS vessel tracks (history_cost.sh,
# history_read.sh): PyPI's tracktable-data 1.7.3.1, downloaded once into
# ${XDG_CACHE_HOME:-$HOME/.cache}/trackdb-bench (never into the tree), and
# its python_example_data/US_coastal_2020_06_30.traj and
# NYHarbor_2020_12_first_week.traj converted into one CSV by
# bench/traj_to_csv.py (which says what .traj is and which rows it drops).
# Needs python3 (pip), unzip and sha256sum. Run from the runfiles root.

ais_cache="${XDG_CACHE_HOME:-$HOME/.cache}/trackdb-bench"
ais_wheel_name="tracktable_data-1.7.3.1-py3-none-any.whl"
# The wheel's sha256 as PyPI served it when this was written: a changed or
# truncated cache is refetched, never measured.
ais_wheel_sha256="949cd19954baaf98fd2610c282c1c1265514bc4675cb0ea2ff59250136a3c0a1"
ais_traj_files=(US_coastal_2020_06_30.traj NYHarbor_2020_12_first_week.traj)

# ais_csv WORKDIR OUT.csv: the two files' fixes as one CSV; what was dropped
# on the way goes to stdout.
ais_csv() {
  local work="$1" out="$2" wheel="$ais_cache/$ais_wheel_name" root="$PWD" f
  mkdir -p "$ais_cache"
  if [[ ! -f "$wheel" ]] || ! echo "$ais_wheel_sha256  $wheel" | sha256sum --check --status; then
    rm -f "$wheel"
    echo "== downloading tracktable-data 1.7.3.1 (about 70 MB) into $ais_cache"
    python3 -m pip download --quiet --no-deps --only-binary=:all: \
      tracktable-data==1.7.3.1 -d "$ais_cache"
    echo "$ais_wheel_sha256  $wheel" | sha256sum --check --status ||
      { echo "ais_data: $wheel does not have the expected sha256" >&2; return 1; }
  fi
  # Only the two files, straight from the wheel (a zip).
  for f in "${ais_traj_files[@]}"; do
    unzip -p "$wheel" "tracktable_data/python_example_data/$f" >"$work/$f"
  done
  echo "== converting ${ais_traj_files[*]} to CSV"
  (cd "$work" && python3 "$root/bench/traj_to_csv.py" "${ais_traj_files[@]}") \
    >"$out" 2>"$work/convert.log"
  sed 's/^traj_to_csv: /   /' "$work/convert.log"
  rm -f "${ais_traj_files[@]/#/$work/}"
}
