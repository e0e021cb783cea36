import Foundation
import ThrumTestSupport
import ThrumWire
import XCTest

/// Every constant of the C header `firmware-protocol/thrum_protocol.h` against its Swift mirror in
/// ``ProtocolConstants``: the header is parsed here (not copied), so a value changed on one side
/// only, a constant added to the header without a Swift mirror, or a mirror left behind after a
/// constant was removed, fails.
final class ProtocolConstantsAgreementTests: XCTestCase {
    /// The Swift mirror of each C constant, by its C name.
    private static let mirrors: [String: UInt64] = {
        typealias P = ProtocolConstants
        return [
            "THRUM_PROTOCOL_VERSION": UInt64(P.protocolVersion),
            "THRUM_SYNC": UInt64(P.sync),
            "THRUM_MAX_PAYLOAD": UInt64(P.maxPayload),
            "THRUM_FRAME_OVERHEAD": UInt64(P.frameOverhead),
            "THRUM_MAX_FRAME": UInt64(P.maxFrame),
            "THRUM_CTRL_MARK_MASK": UInt64(P.ctrlMarkMask),
            "THRUM_CTRL_MARK_HOST": UInt64(P.ctrlMarkHost),
            "THRUM_CTRL_MARK_DEVICE": UInt64(P.ctrlMarkDevice),
            "THRUM_CTRL_RESERVED_MASK": UInt64(P.ctrlReservedMask),
            "THRUM_CTRL_RESYNC": UInt64(P.ctrlResync),
            "THRUM_CTRL_UNSEQ": UInt64(P.ctrlUnseq),
            "THRUM_CRC_INIT": UInt64(P.crcInitial),
            "THRUM_CRC_POLY_REFLECTED": UInt64(P.crcPolynomialReflected),
            "THRUM_CRC_CHECK": UInt64(P.crcCheck),
            "THRUM_MSG_IDENTIFY": UInt64(P.msgIdentify),
            "THRUM_MSG_PING": UInt64(P.msgPing),
            "THRUM_MSG_STOP": UInt64(P.msgStop),
            "THRUM_MSG_SEGMENT": UInt64(P.msgSegment),
            "THRUM_MSG_CONFIGURE_DRIVER": UInt64(P.msgConfigureDriver),
            "THRUM_MSG_CALIBRATE": UInt64(P.msgCalibrate),
            "THRUM_MSG_WAKE": UInt64(P.msgWake),
            "THRUM_MSG_STANDBY": UInt64(P.msgStandby),
            "THRUM_MSG_PRELOAD_BEGIN": UInt64(P.msgPreloadBegin),
            "THRUM_MSG_PRELOAD_SEGMENT": UInt64(P.msgPreloadSegment),
            "THRUM_MSG_GO": UInt64(P.msgGo),
            "THRUM_MSG_ROM_EFFECT": UInt64(P.msgROMEffect),
            "THRUM_MSG_CUT": UInt64(P.msgCut),
            "THRUM_MSG_CONFIGURE_SAMPLE_TIME": UInt64(P.msgConfigureSampleTime),
            "THRUM_MSG_ACK": UInt64(P.msgAck),
            "THRUM_MSG_IDENTIFY_REPLY": UInt64(P.msgIdentifyReply),
            "THRUM_MSG_ONSET": UInt64(P.msgOnset),
            "THRUM_MSG_FAULT": UInt64(P.msgFault),
            "THRUM_MSG_CALIBRATION_RESULT": UInt64(P.msgCalibrationResult),
            "THRUM_MSG_STATE": UInt64(P.msgState),
            "THRUM_MSG_CAPABILITIES": UInt64(P.msgCapabilities),
            "THRUM_SEGMENT_MIN_DURATION_US": UInt64(P.segmentMinDurationMicroseconds),
            "THRUM_SEGMENT_MAX_DURATION_US": UInt64(P.segmentMaxDurationMicroseconds),
            "THRUM_MAX_FIELD_MESSAGES": UInt64(P.maxFieldMessages),
            "THRUM_PROGRAM_SLOTS": UInt64(P.programSlots),
            "THRUM_ROM_EFFECT_MIN": UInt64(P.romEffectMin),
            "THRUM_ROM_EFFECT_MAX": UInt64(P.romEffectMax),
            "THRUM_CALIBRATION_PASS": UInt64(P.calibrationPass),
            "THRUM_CALIBRATION_FAIL": UInt64(P.calibrationFail),
            "THRUM_STATE_STANDBY": UInt64(P.stateStandby),
            "THRUM_STATE_READY": UInt64(P.stateReady),
            "THRUM_STATE_CALIBRATING": UInt64(P.stateCalibrating),
            "THRUM_CAUSE_HOST": UInt64(P.causeHost),
            "THRUM_CAUSE_IDLE_TIMEOUT": UInt64(P.causeIdleTimeout),
            "THRUM_CAUSE_AUTOMATIC": UInt64(P.causeAutomatic),
            "THRUM_ONSET_ON_TIME": UInt64(P.onsetOnTime),
            "THRUM_ONSET_LATE_TRIMMED": UInt64(P.onsetLateTrimmed),
            "THRUM_ONSET_DROPPED": UInt64(P.onsetDropped),
            "THRUM_FAULT_NO_DRIVER": UInt64(P.faultNoDriver),
            "THRUM_FAULT_BUS_ERROR": UInt64(P.faultBusError),
            "THRUM_FAULT_OVER_TEMPERATURE": UInt64(P.faultOverTemperature),
            "THRUM_FAULT_OVER_CURRENT": UInt64(P.faultOverCurrent),
            "THRUM_FAULT_WATCHDOG_STOP": UInt64(P.faultWatchdogStop),
            "THRUM_FAULT_FLOW_CONTROL": UInt64(P.faultFlowControl),
            "THRUM_FAULT_PROGRAM_FULL": UInt64(P.faultProgramFull),
            "THRUM_FAULT_GO_REJECTED": UInt64(P.faultGoRejected),
            "THRUM_FAULT_BUS_RECOVERY": UInt64(P.faultBusRecovery),
            "THRUM_AMPLITUDE_UPDATE_INTERVAL_US": UInt64(P.amplitudeUpdateIntervalMicroseconds),
            "THRUM_LATE_TOLERANCE_US": UInt64(P.lateToleranceMicroseconds),
            "THRUM_WATCHDOG_US": UInt64(P.watchdogMicroseconds),
            "THRUM_CLOCK_HZ": UInt64(P.clockHz),
            "THRUM_ROM_LATE_WINDOW_US": UInt64(P.romLateWindowMicroseconds),
            "THRUM_WAKE_MAX_TIMEOUT_MS": UInt64(P.wakeMaxTimeoutMilliseconds),
            "THRUM_UVARINT_MAX_BYTES": UInt64(P.uvarintMaxBytes),
            "THRUM_MSG_LIBRARY_BEGIN": UInt64(P.msgLibraryBegin),
            "THRUM_MSG_LIBRARY_WRITE": UInt64(P.msgLibraryWrite),
            "THRUM_MSG_LIBRARY_COMMIT": UInt64(P.msgLibraryCommit),
            "THRUM_MSG_LIBRARY_QUERY": UInt64(P.msgLibraryQuery),
            "THRUM_MSG_LIBRARY_READ": UInt64(P.msgLibraryRead),
            "THRUM_MSG_PLAY_PRESET": UInt64(P.msgPlayPreset),
            "THRUM_MSG_LIBRARY": UInt64(P.msgLibrary),
            "THRUM_MSG_LIBRARY_DATA": UInt64(P.msgLibraryData),
            "THRUM_MSG_TRIGGER": UInt64(P.msgTrigger),
            "THRUM_LIBRARY_READ_MAX": UInt64(P.libraryReadMax),
            "THRUM_LIBRARY_STATUS_ACTIVE": UInt64(P.libraryStatusActive),
            "THRUM_LIBRARY_STATUS_EMPTY": UInt64(P.libraryStatusEmpty),
            "THRUM_LIBRARY_STATUS_SWITCHED": UInt64(P.libraryStatusSwitched),
            "THRUM_LIBRARY_STATUS_TOO_LARGE": UInt64(P.libraryStatusTooLarge),
            "THRUM_LIBRARY_STATUS_VERIFY_FAILED": UInt64(P.libraryStatusVerifyFailed),
            "THRUM_LIBRARY_STATUS_WRITE_ERROR": UInt64(P.libraryStatusWriteError),
            "THRUM_LIBRARY_STATUS_NO_STORAGE": UInt64(P.libraryStatusNoStorage),
            "THRUM_LIBRARY_STATUS_BAD_IMAGE": UInt64(P.libraryStatusBadImage),
            "THRUM_TRIGGER_EVENT_BASE": UInt64(P.triggerEventBase),
            "THRUM_TRIGGER_DEBOUNCE_US": UInt64(P.triggerDebounceMicroseconds),
            "THRUM_FAULT_NO_PRESET": UInt64(P.faultNoPreset),
            "THRUM_FAULT_PRESET_CUT": UInt64(P.faultPresetCut),
            "THRUM_FAULT_DRIVE_DROPPED": UInt64(P.faultDriveDropped),
            "THRUM_MSG_RESTORE_CALIBRATION": UInt64(P.msgRestoreCalibration),
            "THRUM_CALIBRATED_NONE": UInt64(P.calibratedNone),
            "THRUM_CALIBRATED_MEASURED": UInt64(P.calibratedMeasured),
            "THRUM_CALIBRATED_RESTORED": UInt64(P.calibratedRestored),
            "THRUM_MSG_SHAPE": UInt64(P.msgShape),
            "THRUM_MSG_PLAY_SHAPE": UInt64(P.msgPlayShape),
            "THRUM_MSG_FOLLOW": UInt64(P.msgFollow),
            "THRUM_MSG_NEXT_SHAPE": UInt64(P.msgNextShape),
            "THRUM_STREAM_SHAPES": UInt64(P.streamShapes),
            "THRUM_STREAM_SHAPE_BYTES": UInt64(P.streamShapeBytes),
            "THRUM_MSG_FRAME_TIMES": UInt64(P.msgFrameTimes),
            "THRUM_MSG_FRAME_TIME": UInt64(P.msgFrameTime),
            "THRUM_FRAME_TIMES_MAX_INTERVAL_MS": UInt64(P.frameTimesMaxIntervalMilliseconds),
            "THRUM_USB_FRAME_MASK": UInt64(P.usbFrameMask),
            "THRUM_MSG_DEPARTURE": UInt64(P.msgDeparture),
            "THRUM_MSG_CLAIM": UInt64(P.msgClaim),
            "THRUM_MSG_RELEASE": UInt64(P.msgRelease),
            "THRUM_MSG_SESSION": UInt64(P.msgSession),
            "THRUM_SESSION_NONE": UInt64(P.sessionNone),
            "THRUM_SESSION_CLAIMED": UInt64(P.sessionClaimed),
            "THRUM_SESSION_TAKEN": UInt64(P.sessionTaken),
            "THRUM_SESSION_REFUSED": UInt64(P.sessionRefused),
            "THRUM_DEPARTURE_MAX_WAIT_US": UInt64(P.departureMaxWait),
        ]
    }()

    func testEveryHeaderConstantHasAnEqualSwiftMirror() throws {
        let header = try HeaderConstants(path: PackageRoot.file("firmware-protocol/thrum_protocol.h").path)
        XCTAssertGreaterThanOrEqual(header.values.count, 60, "the header parser found too few constants")
        for (name, value) in header.values.sorted(by: { $0.key < $1.key }) {
            guard let mirror = Self.mirrors[name] else {
                XCTFail("thrum_protocol.h:\(header.lines[name] ?? 0): \(name) has no mirror in ProtocolConstants")
                continue
            }
            XCTAssertEqual(mirror, value, "thrum_protocol.h:\(header.lines[name] ?? 0): \(name) is \(value) in C, \(mirror) in Swift")
        }
        for name in Self.mirrors.keys.sorted() where header.values[name] == nil {
            XCTFail("ProtocolConstants mirrors \(name), which thrum_protocol.h does not define")
        }
    }

    /// The firmware build includes the header through `hardware/firmware/include`: the same file.
    func testFirmwareIncludesTheSameHeader() throws {
        let spec = try Data(contentsOf: PackageRoot.file("firmware-protocol/thrum_protocol.h"))
        let firmware = try Data(contentsOf: PackageRoot.file("hardware/firmware/include/thrum_protocol.h"))
        XCTAssertEqual(spec, firmware)
    }

    /// The parser itself: suffixes, hex, parentheses, sums of earlier constants; a value it cannot
    /// evaluate is an error naming the line, never a silent skip.
    func testHeaderParser() throws {
        let parsed = try HeaderConstants(
            text: "#ifndef X_H\n#define X_H\n#define A 0x7Eu\n#define B 58u /* c */\n#define C (A + B)\n#define D 1uL\n")
        XCTAssertEqual(parsed.values, ["A": 0x7E, "B": 58, "C": 0x7E + 58, "D": 1])
        XCTAssertThrowsError(try HeaderConstants(text: "#define E (A * 2)\n")) { error in
            XCTAssertTrue("\(error)".contains("line 1"), "\(error)")
        }
    }
}

/// The `#define NAME VALUE` constants of a C header (include guards, whose value is empty, left out).
struct HeaderConstants {
    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    private(set) var values: [String: UInt64] = [:]
    private(set) var lines: [String: Int] = [:]

    init(path: String) throws {
        try self.init(text: String(contentsOfFile: path, encoding: .utf8))
    }

    init(text: String) throws {
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = String(raw)
            if let comment = line.range(of: "/*") { line = String(line[..<comment.lowerBound]) }
            let words = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            guard words.count >= 2, words[0] == "#define" else { continue }
            let name = String(words[1])
            guard words.count == 3 else { continue }  // an include guard
            let expression = words[2].trimmingCharacters(in: .whitespaces)
            guard let value = evaluate(expression) else {
                throw ParseError(description: "line \(index + 1): cannot evaluate \(name) = \(expression)")
            }
            values[name] = value
            lines[name] = index + 1
        }
    }

    /// A literal (decimal or hex, with `u`/`l` suffixes), a known name, or a parenthesised sum of those.
    private func evaluate(_ expression: String) -> UInt64? {
        var e = expression
        if e.hasPrefix("("), e.hasSuffix(")") { e = String(e.dropFirst().dropLast()) }
        let terms = e.split(separator: "+").map { $0.trimmingCharacters(in: .whitespaces) }
        var sum: UInt64 = 0
        for term in terms {
            if let known = values[term] {
                sum += known
                continue
            }
            var literal = term.lowercased()
            while literal.hasSuffix("u") || literal.hasSuffix("l") { literal.removeLast() }
            let value = literal.hasPrefix("0x") ? UInt64(literal.dropFirst(2), radix: 16) : UInt64(literal, radix: 10)
            guard let value else { return nil }
            sum += value
        }
        return sum
    }
}
