import Foundation
import ThrumLink
import ThrumTime

/// `thrum monitor`'s screen of what a ``LinkMonitor`` learnt.
extension LinkMonitor {
    /// The screen: one string per line, at most `width` characters each.
    func screen(port: String, bridge: String, now: HostTime, refreshHz: Double, width: Int, onsetLines: Int) -> [String]
    {
        var lines: [String] = []
        func line(_ text: String) { lines.append(String(text.prefix(width))) }
        line(
            "thrum monitor — \(port)   bridge \(bridge)   refresh \(String(format: "%.1f", refreshHz)) Hz   q or Ctrl-C quits"
        )
        line("")
        if let identity {
            line(
                "device   \(DeviceDescription.driverName(Int(identity.driverId))), firmware \(DeviceDescription.firmware(identity)), "
                    + "protocol \(identity.protocolVersion), id \(DeviceDescription.hex(identity.deviceId)), queue \(identity.queueSlots) slots"
            )
        } else {
            line("device   not identified yet (run `thrum play --port \(bridge)` or another client through the bridge)")
        }
        let idle = lastActivity.map { String(format: "%.1f s ago", (now - $0).seconds) } ?? "never"
        line(
            "link     host→device \(hostFrames) frames (\(sequencedFrames) sequenced, \(retransmissions) retransmitted), \(hostBytes) B, \(segments) segments"
        )
        line(
            "         device→host \(deviceFrames) frames, \(deviceBytes) B; CRC errors \(hostDecoder.badFrames) host, \(deviceDecoder.badFrames) device; last traffic \(idle)"
        )
        if clock.sampleCount > 0 {
            let device = Double(clock.deviceTime(at: now).microseconds)
            let bounds = clock.bounds(at: now)
            let half = Double((bounds.upperBound - bounds.lowerBound).microseconds) / 2
            let offset = device - Double(now.nanoseconds) / 1e3
            line(
                String(
                    format: "clock    offset %+.3f ms ± %.0f µs, drift %+.1f ppm, %d samples, round trip %.2f ms",
                    offset / 1e3, half, clock.driftPPM, clock.sampleCount, (lastRoundTrip?.seconds ?? 0) * 1e3))
        } else {
            line("clock    no samples yet")
        }
        line(
            "queue    "
                + (queueDepth.map { "\($0) of \(identity!.queueSlots) slots in use (credits \(credits!))" } ?? "unknown")
        )
        var driver = "driver   "
        if let s = powerState {
            let state = s.knownState.map { "\($0)" } ?? "state \(s.state)"
            let cause = s.knownCause.map { "\($0)" } ?? "cause \(s.cause)"
            driver += "\(state) (\(cause))"
        } else {
            driver += "no STATE seen"
        }
        if let c = calibration {
            driver +=
                "; calibration " + (c.passed ? "passed" : "FAILED")
                + (c.resonanceHz.map { String(format: ", %.1f Hz", $0) } ?? "")
        } else if let calibrated = calibratedSinceReset {
            driver +=
                !calibrated
                ? "; not calibrated since reset"
                : restoredSinceReset ? "; calibration restored since reset" : "; calibrated since reset"
        }
        line(driver)
        line(
            "faults   "
                + (faults.isEmpty
                    ? "none" : faults.suffix(4).map { "\($0.code) (\($0.meaning))" }.joined(separator: "; ")))
        line("")
        line("recent onsets (device time, s)")
        for o in onsets.suffix(onsetLines).reversed() {
            line(String(format: "  event %6u  %14.6f  %@", o.event, o.deviceTime.seconds, o.status))
        }
        return lines
    }
}
