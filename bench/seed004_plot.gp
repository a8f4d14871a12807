# Ingest throughput and L0 files over time, one line per configuration, from
# seed004_bench's CSV (round 1). Stalls show as throughput dips while L0 is high.
#   gnuplot -e "csv='in.csv'; png='out.png'" bench/seed004_plot.gp
set terminal pngcairo size 1200,800 font ",11" noenhanced
set output png
set datafile separator ","
set key outside right top
set grid
set multiplot layout 2,1 title "Seed 004 workload: 3 Puts + 1 Delete per point, AddPoints of 100, 2 writer threads"
set ylabel "points/s"
set format y "%.0s%c"
plot for [c in "rocksdb_2016 rocksdb_defaults trackdb trackdb_memtable_mib=64 bulk_load hand_tuned"] \
  "< grep '^".c.",1,' ".csv using 3:4 with lines lw 2 title c
set xlabel "seconds since ingest started"
set ylabel "L0 files (largest column family)"
set format y "%g"
plot for [c in "rocksdb_2016 rocksdb_defaults trackdb trackdb_memtable_mib=64 bulk_load hand_tuned"] \
  "< grep '^".c.",1,' ".csv using 3:5 with lines lw 2 title c
unset multiplot
