// libFuzzer target: the host's device-frame decoder and device-message parser (ThrumWire),
// compiled into one module with the sources by tools/fuzz.sh.
//
// The decoder also takes the frames of one session (PROTOCOL.md §3.8) named by the input's first
// four bytes, and plain frames unless the first byte is odd.
//
// Invariants: the decoder never holds more than one frame's bytes; every frame it returns
// re-encodes, with the key it matched, to bytes that decode to the same frame and key; no plain
// frame comes when plain frames are refused; every payload that parses re-encodes to a
// payload that parses to the same messages; the byte counters add up.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let session = bytes.prefix(4).enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    let key = CRC16.sessionKey(session)
    var decoder = FrameDecoder(direction: .deviceToHost)
    decoder.keys = [key]
    decoder.acceptsPlain = (bytes.first ?? 0) & 1 == 0
    var frames: [Frame] = []
    var keys: [UInt16?] = []
    // Feed in irregular pieces, as a serial port delivers them.
    var at = 0
    var piece = 1
    while at < bytes.count {
        let end = min(bytes.count, at + piece)
        frames += decoder.push(bytes[at..<end])
        keys += decoder.lastKeys
        precondition(decoder.bufferedCount <= ProtocolConstants.maxFrame, "decoder window overflow")
        at = end
        piece = piece % 7 + 1
    }
    precondition(decoder.validFrames == frames.count)
    precondition(keys.count == frames.count, "one key per frame")
    for (frame, matched) in zip(frames, keys) {
        precondition(frame.payload.count <= ProtocolConstants.maxPayload)
        precondition(matched != nil || decoder.acceptsPlain, "a plain frame taken while plain frames are refused")
        var again = FrameDecoder(direction: .deviceToHost)
        again.keys = [key]
        precondition(again.push(frame.encode(key: matched ?? ProtocolConstants.crcInitial)) == [frame], "a decoded frame does not round-trip")
        precondition(again.lastKeys == [matched], "a frame round-trips with another key")
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
