import ThrumWire

/// Builds messages from the vector text form (`NAME field=value ...`), independently of the codec's
/// own `description`.
enum MessageText {
    struct Fields {
        var values: [String: UInt32]
        var data: [UInt8] = []
        func u32(_ name: String) -> UInt32 { values[name]! }
        func u8(_ name: String) -> UInt8 { UInt8(values[name]!) }
    }

    static func split(_ text: String) -> (String, Fields) {
        let parts = text.split(separator: " ").map(String.init)
        var values: [String: UInt32] = [:]
        var data: [UInt8] = []
        for pair in parts.dropFirst() {
            let kv = pair.split(separator: "=").map(String.init)
            if kv[0] == "data" {
                data = VectorFile.bytes(kv[1])
                continue
            }
            values[kv[0]] = UInt32(kv[1])!
        }
        return (parts[0], Fields(values: values, data: data))
    }

    static func hostMessage(_ text: String) -> HostMessage {
        let (name, f) = split(text)
        switch name {
        case "IDENTIFY": return .identify
        case "PING": return .ping
        case "STOP": return .stop
        case "SEGMENT":
            return .segment(
                SegmentCommand(
                    start: f.u32("start"), duration: f.u32("duration"), from: f.u8("from"), to: f.u8("to"),
                    event: f.u32("event")))
        case "CONFIGURE_DRIVER":
            return .configureDriver(
                DriverConfiguration(
                    ratedVoltage: f.u8("rated_voltage"), odClamp: f.u8("od_clamp"), driveTime: f.u8("drive_time"),
                    olLraPeriod: f.u8("ol_lra_period")))
        case "CALIBRATE": return .calibrate
        case "WAKE": return .wake(idleTimeoutMilliseconds: f.u32("idle_timeout_ms"))
        case "STANDBY": return .standby
        case "PRELOAD_BEGIN": return .preloadBegin(slot: f.u8("slot"))
        case "PRELOAD_SEGMENT":
            return .preloadSegment(
                PreloadSegmentCommand(
                    offset: f.u32("offset"), duration: f.u32("duration"), from: f.u8("from"), to: f.u8("to"),
                    event: f.u32("event")))
        case "GO": return .go(GoCommand(slot: f.u8("slot"), start: f.u32("start"), eventBase: f.u32("event_base")))
        case "ROM_EFFECT":
            return .romEffect(ROMEffectCommand(start: f.u32("start"), effect: f.u8("effect"), event: f.u32("event")))
        case "CUT": return .cut(at: f.u32("at"))
        case "CONFIGURE_SAMPLE_TIME": return .configureSampleTime(code: f.u8("sample_time"))
        case "LIBRARY_BEGIN": return .library(.begin(size: f.u32("size"), crc: f.u32("crc")))
        case "LIBRARY_WRITE": return .library(.write(offset: f.u32("offset"), data: f.data))
        case "LIBRARY_COMMIT": return .library(.commit)
        case "LIBRARY_QUERY": return .library(.query)
        case "LIBRARY_READ": return .library(.read(offset: f.u32("offset"), length: f.u8("length")))
        case "PLAY_PRESET":
            return .library(.play(PlayPresetCommand(id: f.u32("id"), start: f.u32("start"), eventBase: f.u32("event_base"))))
        case "RESTORE_CALIBRATION":
            return .restoreCalibration(
                CalibrationWords(aCalComp: f.u8("a_cal_comp"), aCalBemf: f.u8("a_cal_bemf"), bemfGain: f.u8("bemf_gain")))
        case "SHAPE": return .stream(.shape(id: f.u8("shape"), data: f.data))
        case "PLAY_SHAPE": return .stream(.play(after: f.u32("after"), shape: f.u8("shape"), event: f.u32("event")))
        case "FOLLOW": return .stream(.follow(gap: f.u32("gap"), event: f.u32("event"), data: f.data))
        case "NEXT_SHAPE": return .stream(.next(after: f.u32("after"), shape: f.u8("shape")))
        case "FRAME_TIMES": return .frameTimes(intervalMilliseconds: f.u32("interval_ms"))
        case "CLAIM": return .claim(session: f.u32("session"))
        case "RELEASE": return .release
        default: fatalError("unknown host message \(name)")
        }
    }

    static func deviceMessage(_ text: String) -> DeviceMessage {
        let (name, f) = split(text)
        switch name {
        case "ACK":
            return .ack(
                Acknowledgement(
                    nextSeq: f.u8("next_seq"), rxCtrl: f.u8("rx_ctrl"), rxSeq: f.u8("rx_seq"),
                    rxTime: f.u32("rx_time"), credits: f.u32("credits")))
        case "IDENTIFY_REPLY":
            return .identifyReply(
                DeviceIdentity(
                    protocolVersion: f.u32("protocol_version"), fwMajor: f.u32("fw_major"),
                    fwMinor: f.u32("fw_minor"), fwPatch: f.u32("fw_patch"), deviceId: f.u32("device_id"),
                    clockHz: f.u32("clock_hz"), queueSlots: f.u32("queue_slots"), rxBuffer: f.u32("rx_buffer"),
                    maxPayload: f.u32("max_payload"), driverId: f.u32("driver_id")))
        case "ONSET":
            return .onset(OnsetReport(event: f.u32("event"), time: f.u32("time"), status: f.u8("status")))
        case "FAULT":
            return .fault(FaultReport(code: f.u32("code"), detail: f.u32("detail")))
        case "CALIBRATION_RESULT":
            return .calibrationResult(
                CalibrationReport(
                    status: f.u8("status"), aCalComp: f.u8("a_cal_comp"), aCalBemf: f.u8("a_cal_bemf"),
                    bemfGain: f.u8("bemf_gain"), lraPeriod: f.u8("lra_period")))
        case "STATE": return .state(StateReport(state: f.u8("state"), cause: f.u8("cause")))
        case "CAPABILITIES":
            return .capabilities(
                DeviceCapabilities(
                    programSlots: f.u32("program_slots"), programSegments: f.u32("program_segments"),
                    calibrationCode: f.u8("calibrated")))
        case "LIBRARY":
            return .library(
                .status(
                    LibraryStatusReport(
                        status: f.u8("status"), slot: f.u8("slot"), seq: f.u32("seq"), size: f.u32("size"), crc: f.u32("crc"),
                        capacity: f.u32("capacity"))))
        case "LIBRARY_DATA": return .library(.data(offset: f.u32("offset"), bytes: f.data))
        case "TRIGGER": return .library(.trigger(TriggerReport(input: f.u8("input"), preset: f.u32("preset"), time: f.u32("time"))))
        case "FRAME_TIME": return .frameTime(FrameTimeReport(frame: UInt16(f.u32("frame")), time: f.u32("time")))
        case "DEPARTURE": return .departure(DepartureReport(rxTime: f.u32("rx_time"), wait: f.u32("wait")))
        case "SESSION": return .session(SessionReport(session: f.u32("session"), status: f.u8("status"), at: f.u32("at")))
        default: fatalError("unknown device message \(name)")
        }
    }
}
