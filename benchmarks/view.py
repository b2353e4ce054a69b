"""How a big session's page behaves in a browser: `sts view` on a 50 MB Claude Code session.

    python benchmarks/view.py                  # 50 MB, 3 page loads
    python benchmarks/view.py --size-mb 5 --runs 1

The input is generated into ``bench-out/`` by ``../shared/bench/make_big_trace.py``. Printed:
the time and peak memory of writing the page, then in headless Chromium (the viewer tests'
browser): first contentful paint, first messages shown and page ready (all parsed) after
navigation start; the time from clicking "End" to the last message drawn; scrolling from the
top to the last message with the wheel (time, and the longest task, which is what a reader
feels as a freeze); and a search over every message. Nothing is asserted: it prints figures.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from tests.browser import browser, missing, wait_until  # noqa: E402

GENERATOR = ROOT.parent / "shared" / "bench" / "make_big_trace.py"
OUT = ROOT / "bench-out"
MIB = 1024 * 1024


def make_page(size_mb: int) -> Path:
    source = OUT / f"view-claude-{size_mb}mb.jsonl"
    if not source.exists():
        OUT.mkdir(exist_ok=True)
        subprocess.run([sys.executable, str(GENERATOR), "--format", "claude", "--size-mb",
                        str(size_mb), "-o", str(source)], check=True, capture_output=True)
    page = OUT / f"view-claude-{size_mb}mb.html"
    start = time.perf_counter()
    run = subprocess.run(
        ["/usr/bin/time", "-f", "%M", sys.executable, "-m", "sts", "view", str(source),
         "-o", str(page), "-q"], capture_output=True, text=True, check=True)
    took = time.perf_counter() - start
    peak = int(run.stderr.strip().splitlines()[-1]) / 1024
    print(f"input {source.stat().st_size / MIB:.1f} MiB → page {page.stat().st_size / MIB:.1f}"
          f" MiB: written in {took:.2f} s, peak RSS {peak:.0f} MiB")
    return page


def measure(context, page_path: Path) -> dict[str, float]:
    page = context.new_page()
    page.set_default_timeout(120_000)
    page.goto(page_path.as_uri(), wait_until="commit")
    wait_until(page, "window.__stsReady === true", 120)
    times = page.evaluate("""() => ({
        fcp: (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime,
        first: performance.getEntriesByName('sts-first-messages')[0].startTime,
        ready: performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd,
        n: JSON.parse(document.getElementById('h0').textContent).n })""")
    last = times["n"] - 1
    times["end"] = page.evaluate("""() => new Promise(done => {
        const t = performance.now();
        document.querySelector('#bar .end').click();
        requestAnimationFrame(() => setTimeout(() => done(performance.now() - t)));
    })""")
    assert page.evaluate(f"!!document.getElementById('s0-m{last}')")
    page.evaluate("location.hash = '#s0'")
    wait_until(page, "document.querySelectorAll('.msg').length > 0 && scrollY === 0")
    page.evaluate("""() => { window.__long = [];
        new PerformanceObserver(l => l.getEntries().forEach(e => window.__long.push(e.duration)))
            .observe({type: 'longtask'}); }""")
    start = time.perf_counter()
    page.mouse.move(600, 400)
    while not page.evaluate(f"!!document.getElementById('s0-m{last}')"):
        page.mouse.wheel(0, 5000)
        page.wait_for_timeout(16)
    times["scroll"] = (time.perf_counter() - start) * 1000
    times["longest"] = page.evaluate("Math.max(0, ...window.__long)")
    times["search"] = page.evaluate("""() => new Promise(done => {
        const t = performance.now(), input = document.querySelector('#bar input');
        input.value = 'zzzz-not-there';
        input.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'}));
        (function poll() {
            if (document.querySelector('#bar .count').textContent === 'no match')
                done(performance.now() - t);
            else setTimeout(poll, 5);
        })();
    })""")
    page.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    reason = missing()
    if reason or not GENERATOR.exists():
        sys.exit(f"cannot run: {reason or f'{GENERATOR} is missing'}")
    page_path = make_page(args.size_mb)
    with browser() as context:
        runs = [measure(context, page_path) for _ in range(args.runs)]
    labels = {
        "fcp": "first contentful paint", "first": "first messages shown",
        "ready": "page ready (all parsed)", "end": "click End → last message drawn",
        "scroll": "wheel-scroll top → last message", "longest": "longest task while scrolling",
        "search": "search every message (no match)",
    }
    print(f"{runs[0]['n']:.0f} messages; median of {len(runs)} page load(s), ms:")
    for key, label in labels.items():
        values = [r[key] for r in runs]
        print(f"  {label:<34} {statistics.median(values):>8.0f}   "
              f"(runs: {', '.join(f'{v:.0f}' for v in values)})")


if __name__ == "__main__":
    main()
