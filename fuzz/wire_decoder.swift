// libFuzzer target: the host's device-frame decoder and device-message parser (ThrumWire),
// compiled into one module with the sources by tools/fuzz.sh.
//
// Invariants: the decoder never holds more than one frame's bytes; every frame it returns
// re-encodes to bytes that decode to the same frame; every payload that parses re-encodes to a
// payload that parses to the same messages; the byte counters add up.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var decoder = FrameDecoder(direction: .deviceToHost)
    var frames: [Frame] = []
    // Feed in irregular pieces, as a serial port delivers them.
    var at = 0
    var piece = 1
    while at < bytes.count {
        let end = min(bytes.count, at + piece)
        frames += decoder.push(bytes[at..<end])
        precondition(decoder.bufferedCount <= ProtocolConstants.maxFrame, "decoder window overflow")
        at = end
        piece = piece % 7 + 1
    }
    precondition(decoder.validFrames == frames.count)
    for frame in frames {
        precondition(frame.payload.count <= ProtocolConstants.maxPayload)
        var again = FrameDecoder(direction: .deviceToHost)
        precondition(again.push(frame.encode()) == [frame], "a decoded frame does not round-trip")
        if let messages = try? DeviceMessage.parsePayload(frame.payload) {
            let payload = DeviceMessage.encodePayload(messages)
            guard let reparsed = try? DeviceMessage.parsePayload(payload) else {
                preconditionFailure("re-encoded messages do not parse")
            }
            precondition(reparsed == messages, "device messages do not round-trip")
        }
    }
    return 0
}
