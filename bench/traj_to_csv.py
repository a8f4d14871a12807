#!/usr/bin/env python3
"""tracktable .traj files -> one CSV that trackdb_import reads (bench/history_cost.sh).

The .traj format (tracktable's TrajectoryWriter; sandialabs/tracktable
src/C++/tracktable/RW/detail/TrajectoryHeader.h and PointHeader.h) is one
line per trajectory, all comma-separated tokens:

  *T*, uuid, domain, num_points, num_traj_properties,
      (name, type, value) x num_traj_properties,
  *P*, domain, dimension, has_object_id, has_timestamp, num_point_properties,
      (name, type) x num_point_properties,
  then num_points points, each:
      object_id, timestamp, coordinate x dimension (lon, lat for
      "terrestrial"), property value x num_point_properties

(older files have no uuid after *T*; the number of tokens says which).
A vessel's day may be split into several trajectories, so the entity is the
object id (the MMSI for AIS), not the trajectory.

Output: "entity,time,lat,lon[,speed][,heading]", sorted by entity then
time, which is the order trackdb keeps history in and the order that
favours gzip and xz (the comparison is against their best case). speed and
heading are written only when some input has such a point property: AIS
speed over ground is in knots (trackdb stores km/h), and a heading of 511
(AIS's "not available") or outside [0, 360) becomes an empty field (no
heading), as trackdb_import would reject it.

Rows trackdb_import would reject are dropped and counted on stderr:
positions outside the index's range (|lat| > 85.05112878, |lon| > 180, not
numbers), unparsable times, and later duplicates of one (entity, time)
(the store keeps one fix per entity and time, so the CSV keeps one too and
both hold the same fixes). Only the counts go to stderr; the CSV to stdout.
"""

import math
import re
import sys
from collections import Counter

MAX_LAT = 85.05112878  # model/limits.h: Redis's GEO range, what the doors accept
TIME_RE = re.compile(r"^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?Z?$")
SPEED_NAMES = {"speed", "sog", "speed_over_ground"}
HEADING_NAMES = {"heading", "course", "cog", "course_over_ground"}
KNOTS_TO_KMH = 1.852


def number(text):
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def parse_line(tokens):
    """(point property names, dimension, list of point token lists)."""
    if tokens[0] != "*T*":
        raise ValueError("does not start with *T*")
    i = 1
    # A uuid is 36 characters with dashes; old files go straight to the domain.
    if len(tokens[i]) == 36 and tokens[i].count("-") == 4:
        i += 1
    i += 1  # domain
    num_points = int(tokens[i])
    num_traj_props = int(tokens[i + 1])
    i += 2 + 3 * num_traj_props
    if tokens[i] != "*P*":
        raise ValueError("no *P* point header where expected")
    dimension = int(tokens[i + 2])
    has_id, has_time = int(tokens[i + 3]), int(tokens[i + 4])
    num_props = int(tokens[i + 5])
    names = [tokens[i + 6 + 2 * k].lower() for k in range(num_props)]
    i += 6 + 2 * num_props
    if not (has_id and has_time and dimension == 2):
        raise ValueError("points need an object id, a timestamp and lon/lat")
    width = 2 + dimension + num_props
    if len(tokens) - i != num_points * width:
        raise ValueError(f"{len(tokens) - i} point tokens, expected {num_points} x {width}")
    points = [tokens[j:j + width] for j in range(i, len(tokens), width)]
    return names, points


def main(paths):
    dropped = Counter()  # fixes left out
    blanked = Counter()  # fixes kept, one field left empty
    rows = {}  # (entity, time) -> (lat, lon, speed, heading)
    found_props = set()
    total = 0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line_no, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    names, points = parse_line(line.split(","))
                except (ValueError, IndexError) as e:
                    sys.exit(f"traj_to_csv: {path}:{line_no}: not a .traj trajectory: {e}")
                found_props.update(names)
                speed_at = next((k for k, n in enumerate(names) if n in SPEED_NAMES), None)
                heading_at = next((k for k, n in enumerate(names) if n in HEADING_NAMES), None)
                for p in points:
                    total += 1
                    entity, time = p[0], p[1]
                    lon, lat = number(p[2]), number(p[3])
                    if lat is None or lon is None or abs(lat) > MAX_LAT or abs(lon) > 180:
                        dropped["position off the index's range"] += 1
                        continue
                    if not TIME_RE.match(time):
                        dropped["unparsable time"] += 1
                        continue
                    if (entity, time) in rows:
                        dropped["duplicate (entity, time)"] += 1
                        continue
                    speed = heading = ""
                    if speed_at is not None:
                        v = number(p[4 + speed_at])
                        # AIS: 102.3 knots means "not available".
                        if v is not None and 0 <= v < 102.3:
                            speed = f"{v * KNOTS_TO_KMH:.1f}"
                        elif p[4 + speed_at] != "":
                            blanked["speed not available (fix kept without speed)"] += 1
                    if heading_at is not None:
                        v = number(p[4 + heading_at])
                        if v is not None and 0 <= v < 360:
                            heading = p[4 + heading_at]
                        elif p[4 + heading_at] != "":
                            blanked["heading 511 or outside [0, 360) (fix kept without heading)"] += 1
                    # Coordinates as the file has them: no reformatting, so
                    # the CSV is as small as the source allows.
                    rows[(entity, time)] = (p[3], p[2], speed, heading)
    has_speed = any(n in SPEED_NAMES for n in found_props)
    has_heading = any(n in HEADING_NAMES for n in found_props)
    out = sys.stdout
    out.write("entity,time,lat,lon" + (",speed" if has_speed else "") +
              (",heading" if has_heading else "") + "\n")
    for (entity, time), (lat, lon, speed, heading) in sorted(rows.items()):
        fields = [entity, time, lat, lon]
        if has_speed:
            fields.append(speed)
        if has_heading:
            fields.append(heading)
        out.write(",".join(fields) + "\n")
    print(f"traj_to_csv: {total} fixes read, {len(rows)} written; point properties: "
          f"{', '.join(sorted(found_props)) or 'none'}", file=sys.stderr)
    for reason, n in sorted(dropped.items()):
        print(f"traj_to_csv:   dropped {n}: {reason}", file=sys.stderr)
    for reason, n in sorted(blanked.items()):
        print(f"traj_to_csv:   {n}: {reason}", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: traj_to_csv.py FILE.traj... > fixes.csv")
    main(sys.argv[1:])
