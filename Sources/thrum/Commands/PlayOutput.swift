import Foundation
import ThrumCompiler
import ThrumEngine
import ThrumWire

/// The text and JSON reports of `thrum play`.
enum PlayOutput {
    static func text(
        file: String, profile: ActuatorProfile, identity: DeviceIdentity, report: PlaybackReport, target: PlaybackTarget
    ) -> String {
        var lines: [String] = []
        lines.append("\(file) on \(target.name)")
        lines.append(
            "device: \(DeviceDescription.driverName(Int(identity.driverId))), firmware \(DeviceDescription.firmware(identity)), "
                + "protocol \(identity.protocolVersion), id \(DeviceDescription.hex(identity.deviceId))")
        lines.append("actuator profile: \(profile.name) (\(profile.id))")
        let haptic = report.events.filter(\.type.isHaptic).count
        lines.append(
            "sent \(haptic) haptic events as \(report.segmentCount) segments, \(report.bytesSent) bytes on the wire "
                + "(\(report.bytesReceived) bytes back)")
        lines.append("")
        lines.append("  #  type               requested     onset        error   status")
        for event in report.events {
            let type = event.type.rawValue.padding(toLength: 17, withPad: " ", startingAt: 0)
            let requested = milliseconds(event.requestedTime)
            let onset = event.onsetTime.map(milliseconds) ?? "—".padding(toLength: 10, withPad: " ", startingAt: 0)
            let error = event.onsetTime.map { String(format: "%+7.0f µs", ($0 - event.requestedTime) * 1e6) } ?? "          "
            lines.append(String(format: "%3d", event.patternIndex) + "  \(type)  \(requested)  \(onset)  \(error)  \(event.status.rawValue)")
        }
        return lines.joined(separator: "\n")
    }

    static func json(
        file: String, profile: ActuatorProfile, identity: DeviceIdentity, report: PlaybackReport, target: PlaybackTarget
    ) -> [String: Any] {
        func entry(_ event: PlaybackReport.Event) -> [String: Any] {
            [
                "index": event.patternIndex,
                "type": event.type.rawValue,
                "requested_s": event.requestedTime,
                "onset_s": JSONOutput.orNull(event.onsetTime),
                "drive_onset_s": JSONOutput.orNull(event.driveOnsetTime),
                "error_us": JSONOutput.orNull(event.onsetTime.map { (($0 - event.requestedTime) * 1e6).rounded() }),
                "status": event.status.rawValue,
            ]
        }
        // `events` lists the haptic events the actuator plays; audio events are kept apart.
        let events = report.events.filter(\.type.isHaptic).map(entry)
        let audio = report.events.filter { !$0.type.isHaptic }.map(entry)
        return [
            "audio_events_not_played": audio,
            "file": file,
            "target": target.isVirtual ? "virtual" : target.name,
            "profile": profile.id,
            "device": DeviceDescription.json(identity),
            "events": events,
            "bytes_on_wire": report.bytesSent,
            "bytes_from_device": report.bytesReceived,
            "segments": report.segmentCount,
            "duration_s": report.duration,
        ]
    }

    private static func milliseconds(_ seconds: Double) -> String {
        String(format: "%8.2f ms", seconds * 1000)
    }
}

/// How a device's identity is shown.
enum DeviceDescription {
    static func driverName(_ id: Int) -> String {
        switch id {
        case 7: return "DRV2605L"
        case 3: return "DRV2605"
        case 4: return "DRV2604"
        case 6: return "DRV2604L"
        case 0: return "no driver"
        default: return "driver id \(id)"
        }
    }

    static func firmware(_ identity: DeviceIdentity) -> String {
        "\(identity.fwMajor).\(identity.fwMinor).\(identity.fwPatch)"
    }

    static func hex(_ value: UInt32) -> String { "0x" + String(value, radix: 16, uppercase: true) }

    static func json(_ identity: DeviceIdentity) -> [String: Any] {
        [
            "protocol_version": Int(identity.protocolVersion),
            "firmware_version": firmware(identity),
            "device_id": hex(identity.deviceId),
            "clock_hz": Int(identity.clockHz),
            "queue_slots": Int(identity.queueSlots),
            "rx_buffer": Int(identity.rxBuffer),
            "max_payload": Int(identity.maxPayload),
            "driver_id": Int(identity.driverId),
            "driver": driverName(Int(identity.driverId)),
        ]
    }
}
