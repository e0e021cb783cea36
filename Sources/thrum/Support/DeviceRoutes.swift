import Foundation
import ThrumPattern

/// `thrum play --route FILE.json`: which of the pattern's events each `--port` plays (the left and
/// the right hand of a glove). The manifest:
///
/// ```json
/// {"devices": [{"events": [0, 2, 4]}, {"events": [1, 3]}]}
/// ```
///
/// one entry per `--port`, in order, each listing event indices (the pattern's order, from 0).
/// Every event goes to at least one device (an event in two lists plays on both, and its skew is
/// reported); parameters and curves apply on every device.
struct DeviceRoutes: Equatable {
    /// Event indices per device.
    var events: [[Int]]

    /// Reads `path` for `deviceCount` ports and a pattern of `eventCount` events.
    /// - Throws: a ``CommandFailure`` naming the file, line:column and field path.
    static func read(_ path: String, deviceCount: Int, eventCount: Int) throws -> DeviceRoutes {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CommandFailure(message: "\(path): cannot read the route manifest (\(error.localizedDescription))")
        }
        let root: JSONNode
        do {
            root = try JSONParser().parse([UInt8](data))
        } catch {
            throw CommandFailure(message: "\(path):\(error.position.line):\(error.position.column): \(error.message)")
        }
        return try parse(root, file: path, deviceCount: deviceCount, eventCount: eventCount)
    }

    static func parse(_ root: JSONNode, file: String, deviceCount: Int, eventCount: Int) throws -> DeviceRoutes {
        func fail(_ node: JSONNode, _ path: String, _ message: String) -> CommandFailure {
            CommandFailure(message: "\(file):\(node.position.line):\(node.position.column): \(message) (at \(path))")
        }
        guard let devices = root["devices"] else { throw fail(root, "top level", "expected an object with \"devices\": [{\"events\": [...]}, ...]") }
        guard let list = devices.elements else { throw fail(devices, "devices", "expected an array, one entry per --port, got \(devices.typeName)") }
        guard list.count == deviceCount else {
            throw fail(devices, "devices", "expected \(deviceCount) entries (one per --port), got \(list.count)")
        }
        var events: [[Int]] = []
        for (k, entry) in list.enumerated() {
            guard let indices = entry["events"], let items = indices.elements else {
                throw fail(entry, "devices[\(k)]", "expected {\"events\": [event indices]}")
            }
            var chosen: [Int] = []
            for (j, item) in items.enumerated() {
                guard let value = item.numberValue, value == value.rounded(), value >= 0, value < Double(eventCount) else {
                    throw fail(item, "devices[\(k)].events[\(j)]", "expected an event index from 0 to \(eventCount - 1)")
                }
                chosen.append(Int(value))
            }
            events.append(Array(Set(chosen)).sorted())
        }
        let routed = Set(events.joined())
        if let missing = (0..<eventCount).first(where: { !routed.contains($0) }) {
            throw fail(devices, "devices", "event \(missing) is routed to no device")
        }
        return DeviceRoutes(events: events)
    }

    /// Device `k`'s pattern: its events in the pattern's order, every parameter and curve.
    func pattern(for k: Int, of pattern: HapticPattern) -> HapticPattern {
        HapticPattern(
            events: events[k].map { pattern.events[$0] }, parameters: pattern.parameters, parameterCurves: pattern.parameterCurves,
            version: pattern.version, metadata: pattern.metadata)
    }
}
