import Foundation

/// What the studio needs from the engine side (the `thrum` command implements it): describing a
/// pattern for the page (its events, the compiled drive and predicted acceleration, diagnostics)
/// and playing one on the device.
public protocol StudioBackend: AnyObject, Sendable {
    /// The page's view of `data` (the file `name`): `events` (columns: `type`, `haptic`, `time`,
    /// `duration`, `intensity`, `sharpness`, event k at index k of each) and `diagnostics`, or, for a file
    /// that does not read as AHAP, its `diagnostics` alone. `valid` says which. Quick: no render.
    func describe(name: String, data: Data) -> [String: Any]
    /// The curves under the timeline: requested envelopes, drive, acceleration (the slow part).
    func render(name: String, data: Data, actuator: String?) -> [String: Any]
    /// Starts playing `data` on the devices named by `devices` (their `id`s in ``status()``; nil:
    /// the default ones) (`loop`: again and again until stopped; `actuator`: the virtual device's
    /// profile, nil for the studio's); what happens is sent through `push` as it happens.
    /// - Throws: when it cannot start (a message for the page).
    func play(
        name: String, data: Data, rate: Double, loop: Bool, actuator: String?, devices: [String]?,
        push: @escaping @Sendable ([String: Any]) -> Void
    ) throws -> [String: Any]
    /// Stops what plays.
    func stop()
    /// The devices (`devices`: each one's `id`, `name`, `virtual`, `default`), what plays, how many plays started.
    func status() -> [String: Any]
}

/// The studio's routes over a ``ServedDirectory``, guarded by a ``RequestGuard``: the page, the
/// JSON API and the push channel. Engine-free: playing and describing go to a ``StudioBackend``.
public final class StudioApp: @unchecked Sendable {
    /// The directory served.
    public let directory: ServedDirectory
    /// The file the page opens first (relative name), if one was given.
    public let initialFile: String?
    private let backend: any StudioBackend
    private let lock = NSLock()
    private var guardChecks: RequestGuard?
    private var server: HTTPServer?
    private var watcher: FileWatcher?
    private var refused = 0

    /// Serves `directory` with `backend`; ``start(host:port:)`` listens.
    public init(directory: ServedDirectory, initialFile: String?, backend: any StudioBackend) {
        self.directory = directory
        self.initialFile = initialFile
        self.backend = backend
    }

    /// Listens on `host:port` with a new token and returns the URL to open (token included).
    public func start(host: String, port: Int, limits: HTTPServer.Limits = HTTPServer.Limits()) throws(StudioServerError) -> String {
        let token = RequestGuard.makeToken()
        let server = try HTTPServer(
            host: host, port: port, limits: limits,
            handle: { [weak self] request in self?.handle(request) ?? .error(503, "stopping") },
            admitSocket: { [weak self] request in self?.admits(request) ?? false })
        let checks = RequestGuard(token: token, port: server.port, names: RequestGuard.names(listenHost: host))
        let watcher = FileWatcher(directory: directory) { [weak self] name in
            self?.push(["type": "file-changed", "file": name])
        }
        lock.withLock {
            self.guardChecks = checks
            self.server = server
            self.watcher = watcher
        }
        let shown = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : (host.contains(":") ? "[\(host)]" : host)
        return "http://\(shown):\(server.port)/?token=\(token)"
    }

    /// Stops serving.
    public func stop() {
        let (server, watcher) = lock.withLock { (self.server, self.watcher) }
        watcher?.stop()
        server?.stop()
        backend.stop()
    }

    /// Sends `message` to every open page.
    public func push(_ message: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: message, options: [.sortedKeys]) else { return }
        let server = lock.withLock { self.server }
        server?.broadcast(String(decoding: data, as: UTF8.self))
    }

    /// Requests refused by the guard so far.
    public var refusedCount: Int { lock.withLock { refused } }

    private func admits(_ request: HTTPRequest) -> Bool {
        guard let checks = lock.withLock({ guardChecks }) else { return false }
        if checks.check(request) != nil {
            lock.withLock { refused += 1 }
            return false
        }
        return true
    }

    /// Answers one request (the guard first).
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        guard let checks = lock.withLock({ guardChecks }) else { return .error(503, "not started") }
        if let refusal = checks.check(request) {
            lock.withLock { refused += 1 }
            return .error(403, refusal.description)
        }
        if request.method == "POST" && !(request.header("content-type") ?? "").lowercased().hasPrefix("application/json") {
            return .error(400, "POST bodies are application/json")
        }
        switch (request.method, request.path) {
        case ("GET", "/"), ("GET", "/index.html"):
            return .text(StudioAssets.page, type: "text/html; charset=utf-8")
        case ("GET", "/api/files"):
            return .json(["directory": (directory.root as NSString).lastPathComponent, "files": directory.list(), "initial": initialFile.map { $0 as Any } ?? NSNull()])
        case ("GET", "/api/pattern"):
            return pattern(request)
        case ("GET", "/api/render"):
            guard let name = request.query["file"] else { return .error(400, "give ?file=NAME") }
            do {
                return .json(backend.render(name: name, data: try directory.read(name), actuator: request.query["actuator"]))
            } catch {
                return .error(404, error.message)
            }
        case ("GET", "/api/status"):
            var status = backend.status()
            status["refused"] = refusedCount
            status["sockets"] = lock.withLock { server?.socketCount ?? 0 }
            return .json(status)
        case ("POST", "/api/save"):
            return save(request)
        case ("POST", "/api/play"):
            return play(request)
        case ("POST", "/api/stop"):
            backend.stop()
            return .json(["stopped": true])
        case (_, "/"), (_, "/api/files"), (_, "/api/pattern"), (_, "/api/render"), (_, "/api/status"), (_, "/api/save"), (_, "/api/play"), (_, "/api/stop"):
            return .error(405, "\(request.method) is not served at \(request.path)")
        default:
            return .error(404, "nothing at \(request.path)")
        }
    }

    private func pattern(_ request: HTTPRequest) -> HTTPResponse {
        guard let name = request.query["file"] else { return .error(400, "give ?file=NAME") }
        let data: Data
        do {
            data = try directory.read(name)
        } catch {
            return .error(404, error.message)
        }
        watcher?.watch(name)
        var object = backend.describe(name: name, data: data)
        object["file"] = name
        object["base"] = Self.base(of: data)
        return .json(object)
    }

    /// What names the bytes a page read (FNV-1a, 64 bits, hex): a save sends it back, so that
    /// edits made on other bytes are refused rather than applied to the wrong events.
    static func base(of data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    private func body(_ request: HTTPRequest) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any]
    }

    private func save(_ request: HTTPRequest) -> HTTPResponse {
        guard let body = body(request), let name = body["file"] as? String else { return .error(400, "expected {\"file\": NAME, \"changes\": […]}") }
        guard directory.resolve(name) != nil else { return .error(404, "\(name): no such file in the served directory") }
        let changes = ((body["changes"] as? [[String: Any]]) ?? []).compactMap { c -> AHAPTextEdit.Change? in
            guard let k = c["event"] as? Int else { return nil }
            return AHAPTextEdit.Change(
                event: k, time: c["time"] as? Double, duration: c["duration"] as? Double, intensity: c["intensity"] as? Double,
                sharpness: c["sharpness"] as? Double)
        }
        let deletions = (body["deletions"] as? [Int]) ?? []
        let additions = ((body["additions"] as? [[String: Any]]) ?? []).compactMap { a -> AHAPTextEdit.NewEvent? in
            guard let t = a["time"] as? Double else { return nil }
            return AHAPTextEdit.NewEvent(
                type: (a["type"] as? String) ?? "HapticTransient", time: t, duration: a["duration"] as? Double,
                intensity: (a["intensity"] as? Double) ?? 1, sharpness: (a["sharpness"] as? Double) ?? 0.5)
        }
        let points = ((body["points"] as? [[String: Any]]) ?? []).compactMap { p -> AHAPTextEdit.PointChange? in
            guard let curve = p["curve"] as? Int, let point = p["point"] as? Int else { return nil }
            return AHAPTextEdit.PointChange(curve: curve, point: point, time: p["time"] as? Double, value: p["value"] as? Double)
        }
        do {
            let before = try directory.read(name)
            // Edits name events by their place in the file the page read: on other bytes (another
            // page saved, an editor wrote) they would move other events. Refused; the page reopens.
            if let base = body["base"] as? String, base != Self.base(of: before) {
                return .error(
                    409, "\(name) changed on disk since this page read it: reopen it (these edits name events by their place, which may have moved)")
            }
            let after = try AHAPTextEdit(text: before).applying(changes, deleting: deletions, adding: additions, points: points)
            var object = backend.describe(name: name, data: after)
            guard (object["valid"] as? Bool) == true else {
                object["error"] = "not saved: the edited pattern does not read as AHAP"
                return .json(object, status: 422)
            }
            try directory.write(after, to: name)
            watcher?.watch(name)
            object["file"] = name
            object["saved"] = true
            object["base"] = Self.base(of: after)
            return .json(object)
        } catch let failure as AHAPTextEdit.Failure {
            return .error(422, failure.message)
        } catch {
            return .error(500, "\(error)")
        }
    }

    private func play(_ request: HTTPRequest) -> HTTPResponse {
        guard let body = body(request), let name = body["file"] as? String else { return .error(400, "expected {\"file\": NAME}") }
        let data: Data
        do {
            data = try directory.read(name)
        } catch {
            return .error(404, error.message)
        }
        let rate = min(max((body["rate"] as? Double) ?? 1, 0.1), 10)
        do {
            let started = try backend.play(
                name: name, data: data, rate: rate, loop: (body["loop"] as? Bool) ?? false, actuator: body["actuator"] as? String,
                devices: body["devices"] as? [String]
            ) { [weak self] message in self?.push(message) }
            return .json(started)
        } catch {
            return .error(409, (error as? LocalizedError)?.errorDescription ?? "\(error)")
        }
    }
}
