#!/usr/bin/env python3
"""og-opt's HTML report in a real browser: og-opt lowers PP-OCR det (the built-in W1 graph when
tools/fetch-models.sh has not fetched it) with --svg and --report FILE.html; headless Chromium
renders the report to a PNG; the test checks that the page rendered (not blank: text and tables
draw dark pixels) and that its pictures did (the fills og-opt gives removed and made ops,
include/optgrammar/core/dot.hpp, are on the page, in the region pictures and in the pictures of
each rule's instance). It keeps the screenshot and a crop of its top and of each kind of picture
in the work folder, for a person to look at.

Usage: report_screenshot_test.py --og-opt PATH --work DIR [--models DIR]
Exit status 0 when it holds, 1 otherwise, 77 (skipped) without Chromium, Graphviz's dot or
Debian's python3-pil (tools/install-deps.sh installs them).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
# The page is laid out in a window of 1400 x 32000 CSS pixels (the whole report of PP-OCR det:
# its rule table runs to about 15,000) and drawn at half scale, so the screenshot is 700 x 16000
# pixels, within what Chromium draws in one piece.
WIDTH, HEIGHT, SCALE = 1400, 32000, 0.5
SHOT = (int(WIDTH * SCALE), int(HEIGHT * SCALE))
REMOVED, CREATED = (0xF8, 0xD0, 0xD0), (0xC8, 0xEC, 0xC8)  # dot_removed_fill, dot_created_fill


def chromium():
    for name in ("chromium", "chromium-browser"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def screenshot(browser, html, png):
    """Chromium's flags for a machine without a network."""
    with tempfile.TemporaryDirectory(prefix="og-opt-chromium-") as profile:
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={profile}", "--hide-scrollbars", f"--window-size={WIDTH},{HEIGHT}",
               f"--force-device-scale-factor={SCALE}",
               f"--screenshot={png}", "file://" + os.path.abspath(html)]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    return r.returncode == 0 and os.path.exists(png)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--og-opt", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--models")
    a = ap.parse_args()
    browser = chromium()
    try:
        from PIL import Image, ImageChops
    except ImportError:
        Image = None
    missing = [n for n, ok in (("chromium", browser), ("dot", shutil.which("dot")), ("python3-pil", Image)) if not ok]
    if missing:
        print("SKIPPED: no " + ", ".join(missing) + " (tools/install-deps.sh)")
        return SKIP
    work = os.path.abspath(a.work)
    os.makedirs(work, exist_ok=True)
    det = os.path.join(a.models or "", "ocr-models/assets/ch_PP-OCRv4_det_infer.onnx")
    args = [a.og_opt]
    if a.models and os.path.exists(det):
        args += ["--rules", "htp_lowering", det, "--input-shape", "x=1,3,96,96", "--check", "1"]
    else:
        print(f"(no PP-OCR det in {a.models}: the built-in W1 graph)")
        args += ["--blocks", "3", "--check", "1"]
    out = os.path.join(work, "report")
    args += ["-o", out + ".ogt", "--dot", out + ".dot", "--svg", out + ".svg", "--report", out + ".html"]
    r = subprocess.run(args, capture_output=True, text=True)
    print(r.stdout + r.stderr)
    if r.returncode != 0:
        print(f"og-opt exited {r.returncode}")
        return 1
    with open(out + ".html", encoding="utf-8") as f:
        html = f.read()
    figures = len(re.findall(r"<figure>", html))
    svgs = len(re.findall(r"<svg[ >]", html))
    png = out + ".png"
    if not screenshot(browser, out + ".html", png):
        print("Chromium wrote no screenshot")
        return 1
    im = Image.open(png).convert("RGB")
    w, h = im.size

    def mask(c, tolerance=6):
        """255 where a pixel is within `tolerance` of colour c in each channel."""
        bands = [b.point(lambda v, t=t: 255 if abs(v - t) <= tolerance else 0) for b, t in zip(im.split(), c)]
        return ImageChops.multiply(ImageChops.multiply(bands[0], bands[1]), bands[2])

    dark = im.convert("L").point(lambda v: 255 if v < 70 else 0).histogram()[255]
    found = {}
    for name, c in (("removed", REMOVED), ("made", CREATED)):
        m = mask(c)
        found[name] = m.histogram()[255]
        box = m.getbbox()  # where the fill first shows: a crop for a person to look at
        if box:
            im.crop((0, max(0, box[1] - 100), w, min(h, box[1] + 700))).save(f"{out}.{name}.png")
    im.crop((0, 0, w, min(h, 800))).save(out + ".top.png")
    removed, created = found["removed"], found["made"]
    i = html.find("One instance of each rule")
    print(f"screenshot {png}: {w}x{h}; {figures} figures, {svgs} inline SVGs in the HTML; pixels: "
          f"{dark} dark, {removed} of the removed fill, {created} of the made fill")
    print(f"crops: {out}.top.png, {out}.removed.png, {out}.made.png")
    faults = []
    if (w, h) != SHOT:
        faults.append(f"the screenshot is {w}x{h}, not {SHOT[0]}x{SHOT[1]}")
    if dark < 5000:
        faults.append("the page is blank: hardly a dark pixel (no text, no tables)")
    if svgs < 3 or i < 0:
        faults.append("the report has fewer than 3 pictures or no rule instances")
    if removed < 2000 or created < 2000:
        faults.append("the pictures did not render: too few pixels of the removed or made fill")
    for f in faults:
        print("report screenshot:", f)
    print("RENDERED" if not faults else "NOT RENDERED")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
