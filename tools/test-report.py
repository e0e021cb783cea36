#!/usr/bin/env python3
"""Summarises `swift test --xunit-output` results (tools/test.sh runs it last):

    tools/test-report.py [--slowest N] RESULTS...

RESULTS: xUnit files (.xml) of `swift test --parallel --xunit-output`, or the output of a serial
`swift test` run (its "Test Case '...' passed (X seconds)" lines).

Prints the N slowest tests (default 10; each test's time is its own process's, start-up
included, in a parallel run), then the failed tests, and last the XCTest-style summary line
"Executed N tests, with F failures (F unexpected) in T (T) seconds", T the tests' times added up
(tests run side by side, so more than the run took). Exits 1 when a test failed, 2 on an
unreadable file."""

import argparse
import re
import sys
import xml.etree.ElementTree as ET

# A serial `swift test` run's line for a finished test (it writes no xUnit file).
CASE = re.compile(r"Test Case '([^']+)' (passed|failed) \(([0-9.]+) seconds\)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slowest", type=int, default=10, metavar="N", help="how many of the slowest tests to print")
    parser.add_argument("results", nargs="+", help="xUnit files (.xml) or serial swift test output")
    args = parser.parse_args()

    tests = []  # (seconds, name, failed)
    for path in args.results:
        if not path.endswith(".xml"):
            try:
                with open(path, encoding="utf-8", errors="replace") as log:
                    for line in log:
                        m = CASE.search(line)
                        if m:
                            tests.append((float(m.group(3)), m.group(1).replace(".", "/", 1), m.group(2) == "failed"))
            except OSError as error:
                print(f"test-report: {path}: cannot read the swift test output: {error}", file=sys.stderr)
                return 2
            continue
        try:
            root = ET.parse(path).getroot()
        except (OSError, ET.ParseError) as error:
            print(f"test-report: {path}: not an xUnit file: {error}", file=sys.stderr)
            return 2
        for case in root.iter("testcase"):
            try:
                seconds = float(case.get("time", "0"))
            except ValueError:
                print(f"test-report: {path}: testcase {case.get('name')} has time {case.get('time')!r}, expected seconds",
                      file=sys.stderr)
                return 2
            name = f"{case.get('classname', '?')}/{case.get('name', '?')}"
            failed = case.find("failure") is not None or case.find("error") is not None
            tests.append((seconds, name, failed))

    total = sum(t[0] for t in tests)
    failures = [t for t in tests if t[2]]
    if tests and args.slowest > 0:
        print(f"== the {min(args.slowest, len(tests))} slowest tests (s; {total:.0f} s in all, {len(tests)} tests)")
        for seconds, name, failed in sorted(tests, key=lambda t: -t[0])[: args.slowest]:
            share = 100 * seconds / total if total > 0 else 0
            print(f"{seconds:8.1f} {share:5.1f}%  {name}{'  (failed)' if failed else ''}")
    if failures:
        print(f"== failed ({len(failures)})")
        for _, name, _ in failures:
            print(f"  {name}")
    noun = "test" if len(tests) == 1 else "tests"
    fails = "failure" if len(failures) == 1 else "failures"
    print(f"Executed {len(tests)} {noun}, with {len(failures)} {fails} ({len(failures)} unexpected) in {total:.3f} ({total:.3f}) seconds")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
