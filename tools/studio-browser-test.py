#!/usr/bin/python3
"""Thrum Studio in a real browser (Debian's chromium + chromedriver + python3-selenium).

Starts two `thrum sim`s (simulated devices on pseudo-terminals, crystals 100 ppm apart each way)
and `thrum studio --port A --port B` on them,
serving a scratch copy of examples/heartbeat.ahap, then checks, against the file on disk and
the page's DOM (never the server's word about itself):
  - requests without the token, with a foreign Origin or Host, for ../ or through a symlink
    that leads outside, and oversized bodies are refused (403/404/413) and nothing plays; a
    sound an AHAP names outside the served directory is not read (its waveform stays silent,
    the render says why) while the same sound inside is drawn;
  - the timeline shows one mark per event, at x positions proportional to the file's times;
  - space plays on three devices at once (the virtual device and the two sim ports, all ticked
    in the device picker); every event's reported onset appears on each device's own lane with
    its ± bound, on the virtual device with the true onset inside the bound; a link line per
    device; the playhead moves with the play (where it is when each onset arrives); the page
    says the two ports shared one timeline and the virtual device had its own, and the onsets
    table's skew of the second port against the first holds the true skew between the two
    chips' drives (their register traces);
  - dragging the second beat 20 ms later and saving writes that time and leaves every other
    byte of the file as it was (and `thrum validate` accepts it);
  - an edit made on disk by another program reloads the page.
Screenshots of the main views go to --screenshots. With --bench it also measures the targets
of docs/studio.md (page load to a drawn timeline, a 10 000-event pattern's draw, onset report
to mark, save to next play, idle CPU) and prints them as `bench:` lines.

Usage: /usr/bin/python3 tools/studio-browser-test.py --thrum .build/debug/thrum [--screenshots DIR] [--bench]
Exit status 0 when every check passed; the last line is `N passed, M failed`.
"""
import argparse
import difflib
import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
passed = 0
failed = 0


def check(condition, what):
    global passed, failed
    if condition:
        passed += 1
        print(f"ok: {what}", flush=True)
    else:
        failed += 1
        print(f"FAIL: {what}", flush=True)
    return condition


class Studio:
    """A `thrum studio` process; its URL from the first line of its output."""

    def __init__(self, thrum, target, extra=(), env=None):
        self.process = subprocess.Popen(
            [thrum, "studio", target, *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        line = self.process.stdout.readline().strip()
        if not line.startswith("url: "):
            raise SystemExit(f"thrum studio printed {line!r} first (stderr: {self.process.stderr.read()[:400]})")
        self.url = line[len("url: "):]
        m = re.match(r"http://([^/]+)/\?token=([0-9a-f]+)$", self.url)
        self.hostport, self.token = m.group(1), m.group(2)
        self.host, self.port = self.hostport.rsplit(":", 1)
        threading.Thread(target=self.process.stdout.read, daemon=True).start()

    def request(self, method, path, body=None, headers=None, token=True, host=None):
        c = http.client.HTTPConnection(self.host, int(self.port), timeout=120)
        h = {"Host": host or self.hostport}
        if token:
            h["X-Thrum-Token"] = self.token
        if body is not None:
            h["Content-Type"] = "application/json"
        h.update(headers or {})
        c.request(method, path, body=body, headers=h)
        r = c.getresponse()
        data = r.read()
        c.close()
        return r.status, data

    def json(self, path, body=None):
        status, data = self.request("GET" if body is None else "POST", path, None if body is None else json.dumps(body))
        return status, json.loads(data or b"{}")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def websocket_handshake(studio, origin, token):
    """The status line the server answers a WebSocket upgrade with."""
    s = socket.create_connection((studio.host, int(studio.port)), timeout=10)
    s.sendall(
        (f"GET /ws?token={token} HTTP/1.1\r\nHost: {studio.hostport}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         f"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nOrigin: {origin}\r\n\r\n").encode()
    )
    try:
        answer = s.recv(200).decode(errors="replace")
    except socket.timeout:
        answer = ""
    s.close()
    return answer.split("\r\n")[0]


def listening_addresses(port):
    """The local addresses a socket listens on at `port`, from the kernel's tables."""
    found = []
    for table in ["/proc/net/tcp", "/proc/net/tcp6"]:
        try:
            rows = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            address, hexport = fields[1].split(":")
            if int(hexport, 16) == port and fields[3] == "0A":  # LISTEN
                found.append(address)
    return found


def security(studio, scratch, outside):
    addresses = listening_addresses(int(studio.port))
    check(addresses == ["0100007F"], f"listens on 127.0.0.1 only (kernel's table: {addresses})")
    st, _ = studio.request("GET", "/api/files", token=False)
    check(st == 403, f"no token: 403 (got {st})")
    st, _ = studio.request("GET", "/", token=False)
    check(st == 403, f"the page without the token: 403 (got {st})")
    st, _ = studio.request("GET", "/api/files", headers={"X-Thrum-Token": "0" * 32})
    check(st == 403, f"wrong token: 403 (got {st})")
    st, _ = studio.request("POST", "/api/play", json.dumps({"file": "heartbeat.ahap"}), headers={"Origin": "http://evil.example"})
    check(st == 403, f"play from a foreign Origin: 403 (got {st})")
    st, _ = studio.request("POST", "/api/play", json.dumps({"file": "heartbeat.ahap"}), host="evil.example:80")
    check(st == 403, f"play with a foreign Host (DNS rebinding): 403 (got {st})")
    line = websocket_handshake(studio, "http://evil.example", studio.token)
    check(" 101 " not in line, f"WebSocket from a foreign Origin refused ({line!r})")
    line = websocket_handshake(studio, f"http://{studio.hostport}", "bad")
    check(" 101 " not in line, f"WebSocket without the token refused ({line!r})")
    for name in ["../outside/secret.ahap", "%2e%2e/outside/secret.ahap", "escape.ahap", "linked/secret.ahap", "/etc/passwd"]:
        st, data = studio.request("GET", "/api/pattern?file=" + name)
        check(st == 404 and b"Version" not in data, f"{name}: 404 and no content (got {st})")
    st, files = studio.json("/api/files")
    check("escape.ahap" not in files["files"] and "heartbeat.ahap" in files["files"] and not any(f.startswith("linked/") for f in files["files"]),
          f"links that lead outside are not listed ({files['files']})")
    before = open(outside, "rb").read()
    st, _ = studio.request("POST", "/api/save", json.dumps({"file": "escape.ahap", "changes": [{"event": 0, "time": 0.5}]}))
    check(st == 404 and open(outside, "rb").read() == before, f"save through a symlink outside: 404, file untouched (got {st})")
    big = json.dumps({"file": "heartbeat.ahap", "pad": "x" * (5 << 20)})
    try:
        st, _ = studio.request("POST", "/api/save", big)
    except (ConnectionError, http.client.HTTPException) as e:
        st = f"closed ({e.__class__.__name__})"
    check(st == 413, f"a 5 MiB body: 413 (got {st})")
    # Sounds: one inside the served directory is read and drawn; the same sound named through
    # ../, an absolute path or a symlink out of the directory is not read.
    st, inside = studio.json("/api/render?file=audio-inside.ahap")
    check(st == 200 and max(inside.get("audio_high") or [0]) > 0.5 and min(inside.get("audio_low") or [0]) < -0.5,
          f"a sound inside the directory: its waveform drawn ({st}, high {max(inside.get('audio_high') or [0]):.2f},"
          f" low {min(inside.get('audio_low') or [0]):.2f})")
    for name in ["audio-dotdot.ahap", "audio-absolute.ahap", "audio-linked.ahap"]:
        st, out = studio.json("/api/render?file=" + name)
        silent = not any(out.get("audio_high") or []) and not any(out.get("audio_low") or [])
        said = any("not under the served directory" in n for n in out.get("audio_notes") or [])
        check(st == 200 and silent and said, f"{name}: the sound outside is not read (silent {silent}, notes {out.get('audio_notes')})")
    st, status = studio.json("/api/status")
    check(status.get("plays") == 0, f"nothing played after the refused requests (plays {status.get('plays')})")


def start_browser(profile):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    # A profile of its own: another chromium on the machine (as the same user) keeps its own.
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900",
              "--force-device-scale-factor=1", f"--user-data-dir={profile}"]:
        options.add_argument(a)
    options.binary_location = "/usr/bin/chromium"
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait(driver, condition, timeout, what):
    end = time.time() + timeout
    while time.time() < end:
        try:
            value = condition(driver)
            if value:
                return value
        except Exception:
            pass
        time.sleep(0.05)
    check(False, f"timed out after {timeout} s waiting for {what}")
    return None


def open_file(driver, name):
    """Opens `name` from the file list and waits until its marks and its curves are drawn (a
    redraw after that would replace the elements a test holds)."""
    driver.execute_script(f"[...document.querySelectorAll('#file-list li')].find(li => li.dataset.file === '{name}').click()")
    return wait(driver, lambda d: d.execute_script("return document.body.dataset.rendered") == name, 120, f"{name} drawn")


def heads(driver):
    return driver.execute_script(
        "return [...document.querySelectorAll('#timeline .event')].map(g => { const c = g.querySelector('.head');"
        " const r = c.getBoundingClientRect(); return [Number(g.dataset.eventIndex), r.left + r.width / 2, r.top + r.height / 2]; })")


def drive_starts(trace, after_ns):
    """When each beat began on a simulated chip (ns, monotonic): the starts of the bursts of
    non-zero RTP_INPUT writes (register 2) after `after_ns`, apart by 60 ms or more."""
    starts, last = [], 0
    try:
        rows = open(trace).read().split("\n")[1:]
    except OSError:
        return starts
    for row in rows:
        f = row.split(",")
        if len(f) != 4 or f[2] != "2" or not f[1].isdigit() or int(f[1]) <= after_ns or int(f[3]) == 0:
            continue
        ns = int(f[1])
        if not starts or ns - last >= 60_000_000:
            starts.append(ns)
        last = ns
    return starts


def browser_checks(studio, scratch, shots, bench, traces):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    path = os.path.join(scratch, "heartbeat.ahap")
    original = open(path, "rb").read()
    times = [item["Event"]["Time"] for item in json.loads(original)["Pattern"] if "Event" in item]
    profile = os.path.normpath(os.path.join(scratch, "..", "chromium-profile"))
    os.makedirs(profile, exist_ok=True)
    driver = start_browser(profile)
    results = {}
    try:
        driver.get(studio.url)
        marks = wait(driver, lambda d: len(heads(d)) == len(times) and heads(d), 180, "the timeline's marks")
        if not marks:
            return results
        results["load_ms"] = wait(driver, lambda d: d.execute_script("return window.thrumStudio.metrics.loadToDrawnMs"), 60, "the drawn mark")
        results["rendered_ms"] = wait(driver, lambda d: d.execute_script("return window.thrumStudio.metrics.renderedMs"), 180,
                                      "the drive and acceleration curves")
        check(sorted(m[0] for m in marks) == list(range(len(times))), f"one mark per event, data-event-index 0…{len(times) - 1}")
        xs = {m[0]: m[1] for m in marks}
        scale = (xs[len(times) - 1] - xs[0]) / (times[-1] - times[0])
        worst = max(abs(xs[i] - (xs[0] + (t - times[0]) * scale)) for i, t in enumerate(times))
        check(scale > 0 and worst <= 1.5, f"marks at x proportional to the file's times (worst {worst:.2f} px, {scale:.0f} px/s)")
        driver.save_screenshot(os.path.join(shots, "timeline.png"))

        # The wheel zooms around the pointer: marks spread by e for a deltaY of −500.
        def spread(d):
            m = {h[0]: h[1] for h in heads(d)}
            return m[1] - m[0]
        before_spread = spread(driver)
        driver.execute_script(
            "const s = document.getElementById('timeline'); const r = s.getBoundingClientRect();"
            "s.dispatchEvent(new WheelEvent('wheel', {deltaY: -500, clientX: r.left + 100, clientY: r.top + 100, bubbles: true, cancelable: true}))")
        ratio = spread(driver) / before_spread
        check(abs(ratio - 2.71828) < 0.05, f"wheel zoom spreads the marks by e ({ratio:.3f})")
        driver.execute_script("window.thrumStudio.resetView()")

        # Another actuator profile: the acceleration under the timeline is drawn again for it.
        accel = lambda d: d.execute_script("const p = document.querySelector('#accel .series-accel'); return p && p.getAttribute('points')")
        before_accel = accel(driver)
        other = driver.execute_script(
            "const s = document.getElementById('actuator'); s.selectedIndex = 1; s.dispatchEvent(new Event('change')); return s.value")
        redrawn = wait(driver, lambda d: d.execute_script("return document.body.dataset.profile") == other and accel(d) != before_accel,
                       120, f"the render for {other}")
        check(bool(redrawn), f"choosing {other} redraws the acceleration for it")
        driver.execute_script("const s = document.getElementById('actuator'); s.selectedIndex = 0; s.dispatchEvent(new Event('change'))")
        wait(driver, lambda d: accel(d) == before_accel, 120, "the default profile's render again")

        # Every device ticked (the sim ports are the default with --port), then play with the space bar:
        # every onset appears on its device's lane with its bound, the virtual device's with the true onset.
        devices = driver.execute_script("return [...document.querySelectorAll('#devices input')].map(i => [i.dataset.device, i.checked])")
        check(len(devices) == 3 and devices[0] == ["virtual", False] and devices[1][1] and devices[2][1],
              f"the device picker: the virtual device and the ports, the ports chosen ({devices})")
        driver.execute_script("document.querySelector('#devices input[data-device=\"virtual\"]').click()")
        port_id = devices[1][0] if len(devices) == 3 else ""
        other_port = devices[2][0] if len(devices) == 3 else ""
        asked_ns = time.monotonic_ns()
        all_onsets = "return [...document.querySelectorAll('#onset-layer .onset')].map(g => ({i: Number(g.dataset.eventIndex),"\
            " device: g.dataset.device, onset: Number(g.dataset.onset), bound: Number(g.dataset.bound), truth: g.dataset.trueOnset === undefined"\
            " ? null : Number(g.dataset.trueOnset), band: !!g.querySelector('.band'), status: g.dataset.status, top: g.querySelector('.band')"\
            " && g.querySelector('.band').getBoundingClientRect().top, bottom: g.querySelector('.band') && g.querySelector('.band')"\
            ".getBoundingClientRect().bottom}))"
        heads_moving = []

        def playhead(d):
            p = d.execute_script("const l = document.querySelector('#playhead-layer .playhead[data-device=\"virtual\"]');"
                                 " return l && [Number(l.dataset.position), l.getBoundingClientRect().left]")
            if p and (not heads_moving or heads_moving[-1] != p):
                heads_moving.append(p)
            return False
        driver.find_element(By.TAG_NAME, "body").send_keys(Keys.SPACE)
        both = wait(driver, lambda d: playhead(d) or (lambda o: len(o) == 3 * len(times) and o)(d.execute_script(all_onsets)), 120,
                    "every event's onset on the three devices")
        onsets = [o for o in both or [] if o["device"] == "virtual"]
        ported = [o for o in both or [] if o["device"] == port_id]
        if both:
            check(sorted(o["i"] for o in ported) == list(range(len(times))) and all(o["band"] and o["bound"] > 0 for o in ported),
                  f"the sim port's onsets: one per event, each with its ± bound ({len(ported)})")
            lanes = {d: (min(o["top"] for o in both if o["device"] == d), max(o["bottom"] for o in both if o["device"] == d))
                     for d in ["virtual", port_id]}
            check(lanes["virtual"][1] <= lanes[port_id][0] + 0.5, f"each device's onsets in a lane of its own (y {lanes})")
            colours = driver.execute_script(
                "return ['virtual', arguments[0]].map(d => getComputedStyle(document.querySelector("
                "'#onset-layer .onset[data-device=\"' + d + '\"] .reported')).stroke)", port_id)
            check(colours[0] != colours[1], f"and a colour of its own ({colours})")
        if onsets:
            check(all(o["band"] and o["bound"] > 0 for o in onsets), "each onset drawn with its ± bound")
            check(all(o["truth"] is not None for o in onsets), "each onset with the virtual device's true onset")
            within = [abs(o["truth"] - o["onset"]) <= o["bound"] + 1e-6 for o in onsets if o["truth"] is not None]
            check(all(within), "the true onset lies within the reported onset ± bound, for every event: "
                  + ", ".join(f"#{o['i']} |{(o['truth'] - o['onset']) * 1e6:.0f}| ≤ {o['bound'] * 1e6:.0f} µs" for o in onsets))
            results["onset_latencies"] = driver.execute_script("return window.thrumStudio.metrics.onsetLatenciesMs")
        wait(driver, lambda d: playhead(d) or d.find_element(By.TAG_NAME, "body").get_attribute("data-played"), 60, "the play's end")
        links = driver.execute_script("return [...document.querySelectorAll('#link-strip div')].map(l => [l.dataset.device, l.textContent])")
        check(sorted(l[0] for l in links) == sorted(["virtual", port_id, other_port]) and all("round trip" in l[1] for l in links),
              f"a link line per device ({[l[1][:60] for l in links]})")
        # The two ports on one timeline, the virtual device on its own; the table's skew column:
        # the first port the reference, the second's skew of each beat holding the chips' truth.
        note = driver.execute_script("const n = document.getElementById('timeline-note'); return n && n.textContent") or ""
        check(note == f"{port_id} and {other_port} on one timeline; the virtual device on its own (it runs in virtual time)",
              f"the page says which devices shared a timeline ({note!r})")
        cells = driver.execute_script(
            "return [...document.querySelectorAll('#onset-summary tr[data-device]')].map(r => { const c = r.querySelector('.skew');"
            " return {device: r.dataset.device, i: Number(r.dataset.eventIndex), reference: !!(c && c.dataset.reference),"
            " skew: c && c.dataset.skew !== undefined ? Number(c.dataset.skew) : null, bound: c && c.dataset.bound !== undefined"
            " ? Number(c.dataset.bound) : null, text: c ? c.textContent : null}; })")
        check(all(c["reference"] for c in cells if c["device"] == port_id) and len(cells) == 3 * len(times)
              and all(c["text"] == "own timeline" for c in cells if c["device"] == "virtual"),
              f"a skew column: the first port the reference, the virtual device on its own timeline ({[c['text'] for c in cells]})")
        skews = sorted((c for c in cells if c["device"] == other_port), key=lambda c: c["i"])
        truth = [drive_starts(t, asked_ns) for t in traces]
        if check(len(skews) == len(times) and all(c["skew"] is not None and c["bound"] > 0 for c in skews)
                 and all(len(t) == len(times) for t in truth),
                 f"the second port's skew of each beat, with its bound ({[c['text'] for c in skews]}; beats at the chips {[len(t) for t in truth]})"):
            # Over a pty the truth's own stamps carry the simulator's scheduling (≈ 100 µs): as MultiDevicePlayTests.
            errors = [((truth[1][c["i"]] - truth[0][c["i"]]) / 1e9, c) for c in skews]
            check(all(abs(c["skew"] - t) <= c["bound"] + 200e-6 for t, c in errors),
                  "the reported skew holds the true skew between the chips: " + ", ".join(
                      f"#{c['i']} {c['skew'] * 1e6:+.0f} ± {c['bound'] * 1e6:.0f} µs, true {t * 1e6:+.0f}" for t, c in errors))
        # The playhead: moved forward through the play, and where the play was when each onset arrived.
        positions = [p[1] for p in driver.execute_script("return window.thrumStudio.metrics.playheadTrail") if p[0] == "virtual"]
        xs_seen = len(set(p[1] for p in heads_moving))
        check(len(positions) >= 3 and all(b >= a for a, b in zip(positions, positions[1:])) and positions[-1] >= times[-1]
              and xs_seen >= 2, f"the playhead moved forward with the play ({len(positions)} positions drawn, {positions[0] if positions else '-'}"
              f" … {positions[-1] if positions else '-'} s; {xs_seen} x positions seen)")
        at = driver.execute_script("return window.thrumStudio.metrics.playheadAtOnsets")
        virtual_at = [a for a in at if a["device"] == "virtual" and a["onset"] is not None]
        check(len(virtual_at) >= len(times) - 1 and all(-0.06 <= a["playhead"] - a["onset"] <= 0.25 for a in virtual_at),
              "when each onset arrived the playhead was at it (playhead − onset: "
              + ", ".join(f"{(a['playhead'] - a['onset']) * 1000:.0f}" for a in virtual_at) + " ms)")
        driver.save_screenshot(os.path.join(shots, "played.png"))
        # The onsets table with its skew column, scrolled into view.
        driver.execute_script("document.getElementById('onsets').scrollIntoView()")
        driver.save_screenshot(os.path.join(shots, "skews.png"))
        driver.execute_script("document.getElementById('views').scrollTop = 0")
        # Zoomed to the second beat: the ± band is as wide as the bound says, in this view's scale.
        driver.execute_script("window.thrumStudio.setView(0.1575, 0.1625)")
        band = driver.execute_script(
            "const g = document.querySelector('#onset-layer .onset[data-event-index=\"1\"]'); const r = g.querySelector('.band')"
            ".getBoundingClientRect(); const t = document.querySelectorAll('#timeline .axis line'); return [r.width, Number(g.dataset.bound)]")
        zoom_scale = driver.execute_script(
            "const s = document.getElementById('timeline'); return (s.clientWidth - 56) / 0.005")
        check(abs(band[0] - 2 * band[1] * zoom_scale) <= 2, f"zoomed in, the band is 2 × bound wide ({band[0]:.1f} px for ±{band[1] * 1e6:.0f} µs)")
        driver.save_screenshot(os.path.join(shots, "onset-zoom.png"))
        driver.execute_script("window.thrumStudio.resetView()")

        # The rest plays on the virtual device alone.
        for port in [port_id, other_port]:
            driver.execute_script("document.querySelector('#devices input[data-device=\"' + arguments[0] + '\"]').click()", port)

        # Drag the second beat 20 ms later, then save.
        marks = {m[0]: m for m in heads(driver)}
        scale = (marks[len(times) - 1][1] - marks[0][1]) / (times[-1] - times[0])
        head = driver.find_element(By.CSS_SELECTOR, '#timeline .event[data-event-index="1"] .head')
        dx = round(0.020 * scale)
        actions = ActionChains(driver)
        actions.click_and_hold(head)
        for k in range(1, 5):
            actions.move_by_offset(dx // 4 if k < 4 else dx - 3 * (dx // 4), 0)
        actions.release().perform()
        driver.save_screenshot(os.path.join(shots, "dragged.png"))
        t0 = time.time()
        driver.find_element(By.ID, "save").click()
        wait(driver, lambda d: open(path, "rb").read() != original, 60, "the saved file")
        results["save_ms"] = (time.time() - t0) * 1000
        saved = open(path, "rb").read()
        new_time = [item["Event"]["Time"] for item in json.loads(saved)["Pattern"] if "Event" in item][1]
        expected = times[1] + dx / scale
        check(abs(new_time - expected) <= 1.5 / scale and abs(new_time - (times[1] + 0.020)) <= 2 / scale,
              f"saved Time of event 1: {new_time:.6f} s (dragged {dx} px = {dx / scale * 1000:.2f} ms; 20 ms asked)")
        ops = [op for op in difflib.SequenceMatcher(None, original.decode(), saved.decode(), autojunk=False).get_opcodes()
               if op[0] != "equal"]
        changed = [(original.decode()[a:b], saved.decode()[c:d]) for _, a, b, c, d in ops]
        old_text = original.decode()
        span = (min(op[1] for op in ops), max(op[2] for op in ops)) if ops else (0, 0)
        token = re.search(r'"Time": ([0-9.]+)', old_text[old_text.index('"Time": 0.16') - 1:])
        check(ops and span[0] >= old_text.index('"Time": 0.16') and span[1] <= old_text.index('"Time": 0.16') + len('"Time": 0.16'),
              f"only event 1's Time changed; every other byte as it was ({changed})")
        v = subprocess.run([args.thrum, "validate", path], capture_output=True, text=True)
        check(v.returncode == 0, f"thrum validate accepts the saved file ({v.stdout.strip()})")
        driver.save_screenshot(os.path.join(shots, "saved.png"))

        # Another editor changes the file: the page follows within a second or so.
        text = open(path).read()
        edited = text.replace('"Time": 0.96', '"Time": 0.9', 1)
        t0 = time.time()
        with open(path, "w") as f:
            f.write(edited)
        moved = wait(driver, lambda d: d.execute_script(
            "const g = document.querySelector('#timeline .event[data-event-index=\"3\"]'); return g && Number(g.dataset.time) === 0.9"),
            10, "the page to reload the file changed on disk")
        results["reload_ms"] = (time.time() - t0) * 1000
        check(bool(moved), f"external edit shown on the page after {results['reload_ms']:.0f} ms")
        driver.save_screenshot(os.path.join(shots, "reloaded.png"))

        # Loop: the second pass's onsets replace the first's; space stops it.
        driver.find_element(By.ID, "loop").click()
        driver.find_element(By.TAG_NAME, "body").send_keys(Keys.SPACE)
        second = wait(driver, lambda d: d.execute_script(
            "return document.querySelectorAll('#onset-layer .onset[data-pass=\"1\"]').length"), 60, "a second pass's onsets")
        check(bool(second), "looping: onsets of the second pass arrive")
        only = driver.execute_script("return [...new Set([...document.querySelectorAll('#onset-layer .onset')].map(g => g.dataset.device))]")
        check(only == ["virtual"], f"with the port unticked the play goes to the virtual device alone (onsets from {only})")
        before = driver.find_element(By.TAG_NAME, "body").get_attribute("data-played")
        driver.find_element(By.TAG_NAME, "body").send_keys(Keys.SPACE)
        stopped = wait(driver, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-played") != before, 30, "the loop to stop")
        check(bool(stopped), "space stops the loop")
        driver.find_element(By.ID, "loop").click()

        # An audio event drawn with its waveform.
        open_file(driver, "audio-inside.ahap")
        wave = driver.execute_script("const w = document.querySelector('#timeline .audio-wave'); return w && w.getBoundingClientRect().height")
        check(bool(wave) and wave > 15, f"the sound's waveform drawn along the intensity lane ({wave} px high)")
        driver.save_screenshot(os.path.join(shots, "audio.png"))

        # Diagnostics at the event they name.
        open_file(driver, "unsorted-events.ahap")
        flagged = wait(driver, lambda d: d.execute_script(
            "return !!document.querySelector('#diagnostic-list li[data-event-index=\"1\"]')"
            " && !!document.querySelector('#timeline .event.diag[data-event-index=\"1\"]')"), 60, "the diagnostic")
        check(bool(flagged), "the reader's warning shows inline at the event it names (#1 of unsorted-events.ahap)")
        driver.save_screenshot(os.path.join(shots, "diagnostics.png"))

        # Delete, undo, redo, undo, add, save: the file gains one event and keeps the rest.
        unsorted = os.path.join(scratch, "unsorted-events.ahap")
        before_text = open(unsorted, "rb").read()
        count = lambda d: d.execute_script("return document.querySelectorAll('#timeline .event').length")
        n = count(driver)
        driver.find_element(By.CSS_SELECTOR, '#timeline .event[data-event-index="4"] .head').click()
        body = driver.find_element(By.TAG_NAME, "body")
        body.send_keys(Keys.DELETE)
        after_delete = count(driver)
        body.send_keys(Keys.CONTROL, "z")
        after_undo = count(driver)
        body.send_keys(Keys.CONTROL, Keys.SHIFT, "z")
        after_redo = count(driver)
        body.send_keys(Keys.CONTROL, "z")
        check((after_delete, after_undo, after_redo, count(driver)) == (n - 1, n, n - 1, n),
              f"delete, undo, redo, undo: {n} → {after_delete} → {after_undo} → {after_redo} → {count(driver)} marks")
        driver.find_element(By.ID, "add").click()
        check(count(driver) == n + 1, "Add puts a new mark on the timeline")
        driver.find_element(By.ID, "save").click()
        wait(driver, lambda d: open(unsorted, "rb").read() != before_text, 60, "the save with an added event")
        saved_events = [i for i in json.loads(open(unsorted, "rb").read())["Pattern"] if "Event" in i]
        after_text = open(unsorted, "rb").read()
        cut = before_text.rstrip().rindex(b"}")  # the end of the last element
        cut = before_text.rstrip()[:cut].rstrip().rindex(b"}") + 1
        check(len(saved_events) == n + 1 and after_text.startswith(before_text[:cut]),
              f"saved: {len(saved_events)} events, every byte before the new one as it was")

        # An envelope: drag swell's second intensity control point down, save; only its value changes.
        swell = os.path.join(scratch, "swell.ahap")
        swell_before = open(swell, "rb").read()
        open_file(driver, "swell.ahap")
        point = wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, '#timeline .curve-point[data-curve-index="0"][data-point-index="1"]'),
                     60, "swell's control points")
        if point:
            old_value = float(point.get_attribute("data-value"))
            ActionChains(driver).click_and_hold(point).move_by_offset(0, 10).move_by_offset(0, 10).release().perform()
            moved = wait(driver, lambda d: (lambda v: v != old_value and v)(float(d.find_element(
                By.CSS_SELECTOR, '#timeline .curve-point[data-curve-index="0"][data-point-index="1"]').get_attribute("data-value"))),
                10, "the dragged control point")
            new_value = moved if moved is not None else old_value
            driver.find_element(By.ID, "save").click()
            wait(driver, lambda d: open(swell, "rb").read() != swell_before, 60, "swell saved")
            curve = [i["ParameterCurve"] for i in json.loads(open(swell, "rb").read())["Pattern"] if "ParameterCurve" in i][0]
            saved_value = curve["ParameterCurveControlPoints"][1]["ParameterValue"]
            a, b = swell_before.decode(), open(swell).read()
            p = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
            q = next((i for i in range(min(len(a), len(b)) - p) if a[-1 - i] != b[-1 - i]), min(len(a), len(b)) - p)
            was, now = a[p:len(a) - q], b[p:len(b) - q]
            check(new_value < old_value and abs(saved_value - new_value) < 1e-6 and re.fullmatch(r"[0-9.eE+-]*", was + now) is not None,
                  f"control point dragged {old_value} → {new_value}, saved {saved_value}; only number characters changed ({was!r} → {now!r})")
            driver.save_screenshot(os.path.join(shots, "envelope.png"))

        if bench:
            # Every onset pushed so far (the first play's and the loop's).
            results["onset_latencies"] = driver.execute_script("return window.thrumStudio.metrics.onsetLatenciesMs")
            # Save → next play: the play that follows a save plays the saved pattern.
            t0 = time.time()
            studio.json("/api/save", {"file": "heartbeat.ahap", "changes": [{"event": 2, "time": 0.81}]})
            st, started = studio.json("/api/play", {"file": "heartbeat.ahap"})
            results["save_to_play_ms"] = (time.time() - t0) * 1000
            time.sleep(3)
            # The 10 000-event pattern: from the click in the file list to its marks painted (the
            # pattern's JSON fetched and parsed, the marks drawn, laid out and painted), and the draw alone.
            driver.get(studio.url)
            wait(driver, lambda d: len(heads(d)) > 0, 120, "the page")
            driver.execute_script(
                "window.benchClick = performance.now();"
                "[...document.querySelectorAll('#file-list li')].find(li => li.dataset.file === 'large.ahap').click()")
            drawn = wait(driver, lambda d: d.execute_script(
                "const m = window.thrumStudio.metrics; return document.querySelectorAll('#timeline .event').length >= 10000"
                " && m.firstPaintedAfter(window.benchClick, 10000) && [m.firstPaintedAfter(window.benchClick, 10000) - window.benchClick, m.lastDrawMs]"),
                300, "the 10 000-event pattern")
            if drawn:
                results["open_10k_ms"], results["draw_10k_ms"] = drawn
            driver.save_screenshot(os.path.join(shots, "large.png"))
            # Idle: the heartbeat open, nothing playing; the studio's CPU and the page's (chromium's).
            driver.get(studio.url)
            wait(driver, lambda d: len(heads(d)) > 0, 120, "the page")
            time.sleep(2)
            results["idle_cpu"] = idle_cpu([studio.process.pid])
            results["idle_cpu_browser"] = idle_cpu(processes_with(profile))
    finally:
        driver.quit()
    return results


def write_tone(path, seconds=0.3, hz=200.0, amplitude=0.8):
    """A mono 16-bit 44.1 kHz sine."""
    import math
    import struct
    import wave
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(44100)
        w.writeframes(b"".join(struct.pack("<h", int(amplitude * 32767 * math.sin(2 * math.pi * hz * i / 44100)))
                               for i in range(int(seconds * 44100))))


def idle_cpu(pids, seconds=10):
    """The CPU the processes `pids` used over `seconds`, in % of one core (user + system)."""
    def ticks():
        total = 0
        for pid in pids:
            try:
                fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])
            except OSError:
                pass
        return total
    a = ticks()
    time.sleep(seconds)
    return (ticks() - a) / os.sysconf("SC_CLK_TCK") / seconds * 100


def processes_with(text):
    """The processes whose command line contains `text` (chromium's, by its profile directory)."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if text.encode() in open(f"/proc/{pid}/cmdline", "rb").read():
                    found.append(int(pid))
            except OSError:
                pass
    return found


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))] if values else float("nan")


def main():
    scratch = tempfile.mkdtemp(prefix="thrum-studio-")
    outside_dir = tempfile.mkdtemp(prefix="thrum-outside-")
    try:
        served = os.path.join(scratch, "served")
        os.makedirs(served)
        shutil.copy(os.path.join(ROOT, "examples", "heartbeat.ahap"), served)
        shutil.copy(os.path.join(ROOT, "examples", "swell.ahap"), served)
        shutil.copy(os.path.join(ROOT, "Tests", "ThrumTestSupport", "Fixtures", "ahap", "unsorted-events.ahap"), served)
        outside = os.path.join(outside_dir, "secret.ahap")
        shutil.copy(os.path.join(ROOT, "examples", "heartbeat.ahap"), outside)
        os.makedirs(os.path.join(scratch, "outside"))
        shutil.copy(outside, os.path.join(scratch, "outside", "secret.ahap"))
        os.symlink(outside, os.path.join(served, "escape.ahap"))
        os.symlink(outside_dir, os.path.join(served, "linked"))
        write_tone(os.path.join(served, "tone.wav"))
        write_tone(os.path.join(outside_dir, "tone.wav"))
        for name, path in [("audio-inside", "tone.wav"), ("audio-dotdot", os.path.relpath(os.path.join(outside_dir, "tone.wav"), served)),
                           ("audio-absolute", os.path.join(outside_dir, "tone.wav")), ("audio-linked", "linked/tone.wav")]:
            json.dump({"Version": 1.0, "Pattern": [
                {"Event": {"Time": 0.0, "EventType": "HapticTransient", "EventParameters": [
                    {"ParameterID": "HapticIntensity", "ParameterValue": 0.8}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.5}]}},
                {"Event": {"Time": 0.05, "EventType": "AudioCustom", "EventWaveformPath": path, "EventParameters": [
                    {"ParameterID": "AudioVolume", "ParameterValue": 1.0}]}}]}, open(os.path.join(served, name + ".ahap"), "w"), indent=2)
        if args.bench:
            events = [{"Event": {"Time": round(i * 0.006, 4), "EventType": "HapticTransient", "EventParameters": [
                {"ParameterID": "HapticIntensity", "ParameterValue": 0.5 + 0.5 * (i % 2)},
                {"ParameterID": "HapticSharpness", "ParameterValue": 0.5}]}} for i in range(10000)]
            json.dump({"Version": 1.0, "Pattern": events}, open(os.path.join(served, "large.ahap"), "w"))
        os.makedirs(args.screenshots, exist_ok=True)
        # The simulated device on a pseudo-terminal, and the studio holding it.
        env = dict(os.environ, XDG_RUNTIME_DIR=scratch, XDG_CONFIG_HOME=os.path.join(scratch, "config"))
        traces = [os.path.join(scratch, "trace-a.csv"), os.path.join(scratch, "trace-b.csv")]
        sims, ports = [], []
        try:
            for trace, drift in zip(traces, ["100", "-100"]):
                sim = subprocess.Popen([args.thrum, "sim", "--drift-ppm", drift, "--trace", trace], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
                sims.append(sim)
                line = sim.stdout.readline().strip()
                if not line.startswith("pty: "):
                    raise SystemExit(f"thrum sim printed {line!r} first")
                threading.Thread(target=sim.stdout.read, daemon=True).start()
                ports += ["--port", line[len("pty: "):]]
            studio = Studio(args.thrum, served, ports, env)
        except BaseException:
            for sim in sims:
                sim.kill()
            raise
        try:
            security(studio, served, outside)
            results = browser_checks(studio, served, args.screenshots, args.bench, traces)
            if args.bench:
                lat = results.get("onset_latencies") or []
                print(f"bench: page load to drawn timeline: {results.get('load_ms') or float('nan'):.0f} ms")
                print(f"bench: page load to drive and acceleration drawn: {results.get('rendered_ms') or float('nan'):.0f} ms")
                print(f"bench: onset report to mark: p50 {percentile(lat, 50):.1f} ms, p99 {percentile(lat, 99):.1f} ms ({len(lat)} onsets)")
                print("bench: onset latencies: " + " ".join(f"{v:.2f}" for v in lat))
                print(f"bench: save (page click) to file on disk: {results.get('save_ms', float('nan')):.0f} ms")
                print(f"bench: save then play accepted: {results.get('save_to_play_ms', float('nan')):.0f} ms")
                print(f"bench: file changed on disk to page updated: {results.get('reload_ms', float('nan')):.0f} ms")
                print(f"bench: 10 000-event pattern opened to painted: {results.get('open_10k_ms') or float('nan'):.0f} ms")
                print(f"bench: 10 000-event pattern draw (script): {results.get('draw_10k_ms') or float('nan'):.0f} ms")
                print(f"bench: idle studio CPU: {results.get('idle_cpu', float('nan')):.2f} % of a core")
                print(f"bench: idle page CPU (chromium): {results.get('idle_cpu_browser', float('nan')):.2f} % of a core")
        finally:
            studio.stop()
            for sim in sims:
                sim.terminate()
                try:
                    sim.wait(10)
                except subprocess.TimeoutExpired:
                    sim.kill()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(outside_dir, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--thrum", required=True)
    parser.add_argument("--screenshots", default=os.path.join(ROOT, ".build", "studio-screenshots"))
    parser.add_argument("--bench", action="store_true")
    args = parser.parse_args()
    sys.exit(main())
