#!/usr/bin/python3
"""The map page in a real browser: headless Chromium (Debian's chromium and
chromium-driver, driven by python3-selenium) loads it from a trackd filled
with known tracks and the test reads the DOM:

- every entity is on the map and listed, the fence is drawn;
- clicking an entity draws its track: the polyline has the points
  Douglas-Peucker keeps of its fixes, and its stay is marked;
- a GEOADD that crosses the fence shows its ENTER event, live;
- a box query lists who was there in a time range;
- a screenshot is saved (TEST_UNDECLARED_OUTPUTS_DIR/map_page.png).

With the argument "auth" (map_page_auth_test): with a requirepass set, the
page, its API and its stream refuse a client without credentials and serve
one with them.
"""
import base64
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

import grpc
import redis
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

HERE = os.path.dirname(os.path.abspath(__file__))
TRACKD = os.path.join(os.path.dirname(HERE), "trackd")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                "tools", "crash"))
from trackdb.v1 import track_service_pb2 as pb  # noqa: E402
from trackdb.v1 import track_service_pb2_grpc as pb_grpc  # noqa: E402
sys.path.insert(0, os.path.dirname(HERE))
from test_support import fail, free_port  # noqa: E402

WORK = os.environ.get("TEST_TMPDIR", "/tmp")
OUT = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR", WORK)
T0 = 1_700_000_000_000  # the tracks' first fix, Unix ms




class Trackd:
    def __init__(self, name, config=""):
        self.dir = os.path.join(WORK, name)
        os.makedirs(self.dir, exist_ok=True)
        self.resp, self.grpc, self.http = free_port(), free_port(), free_port()
        conf = os.path.join(self.dir, "trackd.textproto")
        with open(conf, "w") as f:
            f.write(config)
        self.log = open(os.path.join(self.dir, "log"), "w+")
        self.proc = subprocess.Popen(
            [TRACKD, "--config=" + conf, "--data_dir=" + self.dir + "/data",
             "--resp_port=%d" % self.resp, "--grpc_port=%d" % self.grpc,
             "--http_port=%d" % self.http], stderr=self.log)
        for _ in range(600):
            if self.proc.poll() is not None:
                fail("trackd exited: " + self.log_text())
            if "trackd: ready\n" in self.log_text():
                return
            time.sleep(0.1)
        fail("trackd did not start: " + self.log_text())

    def log_text(self):
        self.log.seek(0)
        return self.log.read()

    def url(self, path):
        return "http://127.0.0.1:%d%s" % (self.http, path)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)


def fill(node):
    """t1: a zigzag of 12 fixes a minute apart, then 15 minutes parked where
    it ended (a stay); t2 and t3 elsewhere; the fence "depot" north of them
    all."""
    stub = pb_grpc.TrackServiceStub(
        grpc.insecure_channel("127.0.0.1:%d" % node.grpc))
    req = pb.AddPointsRequest(collection="fleet")
    for i in range(12):
        req.points.add(entity_id="t1", loc_time_ms=T0 + i * 60000,
                       latitude=40.0 + i * 0.002,
                       longitude=116.0 + (0.002 if i % 2 else 0))
    for i in range(1, 16):
        req.points.add(entity_id="t1", loc_time_ms=T0 + (11 + i) * 60000,
                       latitude=40.022, longitude=116.002)
    req.points.add(entity_id="t2", loc_time_ms=T0, latitude=40.01,
                   longitude=116.02)
    req.points.add(entity_id="t3", loc_time_ms=T0, latitude=40.005,
                   longitude=115.99)
    stub.AddPoints(req)
    redis.Redis(port=node.resp).execute_command(
        "FENCE.SET", "fleet", "depot", "CIRCLE", 116.01, 40.04, 400, "m")


def browser():
    options = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--window-size=1280,800",
                "--user-data-dir=" + os.path.join(WORK, "chromium")):
        options.add_argument(arg)
    os.environ["HOME"] = WORK  # Chromium writes its config under $HOME
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"),
                            options=options)


def wait_for(what, check, seconds=15):
    deadline = time.time() + seconds
    while time.time() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.1)
    fail("timed out waiting for " + what)


def check_page(node):
    d = browser()
    try:
        d.get(node.url("/?collection=fleet"))
        stats = "return window.trackdbStats"
        wait_for("the snapshot",
                 lambda: d.execute_script(stats)["snapshots"] >= 1)
        wait_for("three entities",
                 lambda: d.execute_script(stats)["entities"] == 3)
        listed = [li.get_attribute("data-entity")
                  for li in d.find_elements(By.CSS_SELECTOR, "li.entity")]
        if listed != ["t1", "t2", "t3"]:
            fail("entities listed: %s" % listed)
        fences = wait_for("the fence drawn", lambda: d.find_elements(
            By.CSS_SELECTOR, "path.fence[data-fence=depot]"))
        if len(fences) != 1:
            fail("%d fences drawn" % len(fences))
        print("entities and the fence are on the map")

        d.find_element(By.CSS_SELECTOR, "li.entity[data-entity=t1]").click()
        points = wait_for("t1's track", lambda: d.execute_script(
            "return window.trackdbTrack()"))
        info = d.find_element(By.ID, "track-info")
        if info.get_attribute("data-fixes") != "27":
            fail("track info: %s" % info.text)
        # Douglas-Peucker keeps the zigzag's corners 0..10 and the last
        # fix; the zigzag's end (fix 11) and the parked fixes lie on the
        # line from fix 10 to the last one.
        if points != 12:
            fail("the track polyline has %d points: %s" % (points, info.text))
        if not d.find_elements(By.CSS_SELECTOR, "path.stay"):
            fail("t1's stay is not marked")
        if len(d.find_elements(By.CSS_SELECTOR, "path.track")) != 1:
            fail("no track polyline in the DOM")
        print("t1's track: %d points drawn, %s" % (points, info.text))

        redis.Redis(port=node.resp).geoadd("fleet", (116.01, 40.04, "t2"))
        event = wait_for("the ENTER event", lambda: d.find_elements(
            By.CSS_SELECTOR, "li.event.enter[data-fence=depot]"))
        if event[0].get_attribute("data-entity") != "t2":
            fail("event: " + event[0].text)
        print("live event: " + event[0].text)
        wait_for("t2 moved", lambda: d.execute_script(stats)["updates"] >= 1)

        d.execute_script("window.trackdbSearch('bbox=115.999,40.003,116.003,"
                         "40.009&from=%d&to=%d')" % (T0, T0 + 10 * 60000))
        visits = wait_for("search results", lambda: d.find_elements(
            By.CSS_SELECTOR, "li.visit"))
        who = [v.get_attribute("data-entity") for v in visits]
        if who != ["t1"]:
            fail("who was in the box: %s" % who)
        print("who was there: " + visits[0].text)
        # The whole scene for the screenshot: the track, the fence, t2 in it.
        d.execute_script("map.fitBounds([[39.998, 115.985], [40.046, 116.03]])")
        time.sleep(0.5)
        d.save_screenshot(os.path.join(OUT, "map_page.png"))
        errors = [e for e in d.get_log("browser") if e["level"] == "SEVERE"]
        if errors:
            fail("the page logged errors: %s" % errors)
    finally:
        d.quit()


def status_of(url, user=None):
    request = urllib.request.Request(url)
    if user:
        request.add_header("Authorization", "Basic " +
                           base64.b64encode(user.encode()).decode())
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, r.headers.get("Content-Type", "")
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("WWW-Authenticate", "")


def check_auth():
    node = Trackd("auth", 'server { requirepass: "s3cret" }\n')
    try:
        for path in ("/", "/static/map.js", "/api/collections",
                     "/api/stream?collection=fleet", "/leaflet/leaflet.js"):
            status, challenge = status_of(node.url(path))
            if status != 401 or "Basic" not in challenge:
                fail("%s without credentials: %d %s" % (path, status, challenge))
            if status_of(node.url(path), "default:wrong")[0] != 401:
                fail("%s with a wrong password was served" % path)
        status, kind = status_of(node.url("/api/collections"), "default:s3cret")
        if status != 200 or "json" not in kind:
            fail("with the password: %d %s" % (status, kind))
        d = browser()
        try:
            d.get(node.url("/"))
            if d.find_elements(By.ID, "map"):
                fail("the browser got the page without credentials")
        finally:
            d.quit()
        print("without credentials the page, its API and stream are refused")
    finally:
        node.stop()


def main():
    if not os.path.exists("/usr/share/javascript/leaflet/leaflet.js"):
        fail("no Leaflet: tools/setup/install_deps.sh installs libjs-leaflet")
    if sys.argv[1:] == ["auth"]:
        check_auth()
    else:
        node = Trackd("page")
        try:
            fill(node)
            check_page(node)
        finally:
            node.stop()
    print("PASS")


if __name__ == "__main__":
    main()
