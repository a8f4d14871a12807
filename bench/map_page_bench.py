#!/usr/bin/python3
"""The map page with a large live fleet, in headless Chromium: first paint
and update lag. Run by bench/map_page_bench.sh, which starts trackd and
makes the AIS CSV.

Entities: the first N fixes of the real AIS day (US coastal waters and NY
harbour: dense in ports, sparse offshore), one entity each; updates: the
fixes after them, each moving entity (i mod N) there, sent as one GEOADD
of one member per command (what a tracker sends) at RATE a second.

Reports: first paint (navigation start to the first frame with every
entity drawn), draw time per frame, and update lag
(the server sending a message to the frame that shows it), p50/p99.
"""
import csv
import json
import os
import sys
import time

import redis
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

resp_port, http_port, csv_path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
N = int(os.environ.get("ENTITIES", "100000"))
RATE = int(os.environ.get("RATE", "1000"))
SECONDS = int(os.environ.get("SECONDS_OF_UPDATES", "20"))


def fixes():
    with open(csv_path) as f:
        for row in csv.reader(f):
            if row and row[0] != "entity":
                yield float(row[3]), float(row[2])  # lon, lat


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))] if xs else float("nan")


def main():
    r = redis.Redis(port=resp_port)
    source = fixes()
    batch, loaded = [], 0
    for lon, lat in source:
        batch += [lon, lat, "e%d" % loaded]
        loaded += 1
        if len(batch) == 3000 or loaded == N:
            r.execute_command("GEOADD", "ais", *batch)
            batch = []
        if loaded == N:
            break
    print("loaded %d entities at real AIS fixes" % r.zcard("ais"))

    options = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--window-size=1280,800"):
        options.add_argument(arg)
    d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"),
                         options=options)
    try:
        d.get("http://127.0.0.1:%d/?collection=ais" % http_port)
        deadline = time.time() + 60
        while time.time() < deadline:
            s = d.execute_script("return window.trackdbStats")
            if s["firstPaintMs"] is not None and s["entities"] == N:
                break
            time.sleep(0.05)
        first_paint = s["firstPaintMs"]
        print("first paint %.0f ms for %d entities" % (first_paint, s["entities"]))
        d.execute_script("window.trackdbStats.lagsMs = [];"
                         "window.trackdbStats.drawsMs = [];")
        pipe = r.pipeline(transaction=False)
        sent, start, i = 0, time.time(), 0
        for lon, lat in source:
            due = start + sent / RATE
            if time.time() - start > SECONDS:
                break
            pipe.execute_command("GEOADD", "ais", lon, lat, "e%d" % (i % N))
            i += 1
            sent += 1
            if sent % 10 == 0:
                pipe.execute()
                delay = due - time.time()
                if delay > 0:
                    time.sleep(delay)
        pipe.execute()
        elapsed = time.time() - start
        time.sleep(1)
        s = d.execute_script("return window.trackdbStats")
        out = {
            "entities": N, "first_paint_ms": round(first_paint),
            "updates_sent": sent, "update_rate": round(sent / elapsed),
            "updates_received": s["updates"], "messages": s["messages"],
            "lag_p50_ms": pct(s["lagsMs"], 0.5), "lag_p99_ms": pct(s["lagsMs"], 0.99),
            "draw_p50_ms": round(pct(s["drawsMs"], 0.5), 1),
            "draw_p99_ms": round(pct(s["drawsMs"], 0.99), 1),
            "snapshots": s["snapshots"],
        }
        print(json.dumps(out))
    finally:
        d.quit()


if __name__ == "__main__":
    main()
