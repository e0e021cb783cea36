import CCivetWeb
import Foundation

/// Failures of the studio's server.
public struct StudioServerError: Error, LocalizedError, CustomStringConvertible {
    /// What went wrong, in one line.
    public var message: String
    /// Creates an error.
    public init(_ message: String) { self.message = message }
    public var description: String { message }
    public var errorDescription: String? { message }
}

/// An HTTP and WebSocket server on CivetWeb (Debian's libcivetweb, MIT): CivetWeb parses the
/// requests and frames; this wrapper reads each request (its body bounded), hands it to
/// `handle`, writes the answer, and keeps the open WebSockets to push text to.
///
/// CivetWeb serves no files by itself here (no document root): every answer comes from `handle`.
public final class HTTPServer: @unchecked Sendable {
    /// Bounds on what a client may send.
    public struct Limits: Sendable {
        /// The largest request body accepted (bytes); larger gets 413 before it is read.
        public var maxBody: Int = 4 << 20
        /// Creates the default bounds.
        public init() {}
    }

    /// The answer to one request.
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
    /// Whether a WebSocket upgrade request may open (checked before the handshake completes).
    public typealias SocketAdmission = @Sendable (HTTPRequest) -> Bool

    /// The port the server listens on (the one the system chose for port 0).
    public private(set) var port: Int = 0
    /// The bounds in force.
    public let limits: Limits

    private let handle: Handler
    private let admit: SocketAdmission
    private var context: OpaquePointer?
    private let lock = NSLock()
    private var sockets: [OpaquePointer] = []

    /// Starts listening on `host:port` (port 0: any free one) with `threads` worker threads.
    /// - Throws: ``StudioServerError`` when the address cannot be bound.
    public init(host: String, port: Int, limits: Limits = Limits(), threads: Int = 4, handle: @escaping Handler, admitSocket: @escaping SocketAdmission)
        throws(StudioServerError)
    {
        self.limits = limits
        self.handle = handle
        self.admit = admitSocket
        _ = mg_init_library(UInt32(MG_FEATURES_WEBSOCKET))
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let options = [
            "listening_ports", address, "num_threads", String(threads), "request_timeout_ms", "10000",
            "enable_keep_alive", "yes", "websocket_timeout_ms", "3600000",
        ]
        var callbacks = mg_callbacks()
        // CivetWeb's own error log would go to stderr with the client's noise: quiet.
        callbacks.log_message = { _, _ in 1 }
        let cStrings = options.map { strdup($0) }
        defer { for p in cStrings { free(p) } }
        var pointers: [UnsafePointer<CChar>?] = cStrings.map { UnsafePointer($0) } + [nil]
        let started = mg_start(&callbacks, nil, &pointers)
        guard let started else { throw StudioServerError("cannot listen on \(address) (in use, or not an address of this machine)") }
        context = started
        let me = Unmanaged.passUnretained(self).toOpaque()
        mg_set_request_handler(started, "/", { conn, data in
            guard let conn, let data else { return 500 }
            return Unmanaged<HTTPServer>.fromOpaque(data).takeUnretainedValue().serve(conn)
        }, me)
        mg_set_websocket_handler(
            started, "/ws",
            { conn, data in
                guard let conn, let data else { return 1 }
                let server = Unmanaged<HTTPServer>.fromOpaque(data).takeUnretainedValue()
                return server.admit(server.request(conn, body: Data())) ? 0 : 1
            },
            { conn, data in
                guard let conn, let data else { return }
                Unmanaged<HTTPServer>.fromOpaque(data).takeUnretainedValue().opened(conn)
            },
            { _, _, _, _, _ in 1 },
            { conn, data in
                guard let conn, let data else { return }
                Unmanaged<HTTPServer>.fromOpaque(data).takeUnretainedValue().closed(conn)
            }, me)
        var ports = [mg_server_port](repeating: mg_server_port(), count: 4)
        let n = mg_get_server_ports(started, Int32(ports.count), &ports)
        self.port = n > 0 ? Int(ports[0].port) : port
    }

    deinit { stop() }

    /// Stops listening and closes every connection.
    public func stop() {
        lock.lock()
        let ctx = context
        context = nil
        lock.unlock()
        if let ctx { mg_stop(ctx) }
    }

    /// The number of WebSockets open now.
    public var socketCount: Int { lock.withLock { sockets.count } }

    /// Sends `text` to every open WebSocket.
    public func broadcast(_ text: String) {
        var bytes = Array(text.utf8)
        lock.lock()
        defer { lock.unlock() }
        for conn in sockets {
            _ = mg_websocket_write(conn, Int32(MG_WEBSOCKET_OPCODE_TEXT), &bytes, bytes.count)
        }
    }

    private func opened(_ conn: OpaquePointer) {
        lock.withLock { sockets.append(conn) }
    }

    private func closed(_ conn: OpaquePointer) {
        lock.withLock { sockets.removeAll { $0 == conn } }
    }

    /// Reads the request on `conn`, answers it, returns the status for CivetWeb's log.
    private func serve(_ conn: OpaquePointer) -> Int32 {
        guard let info = mg_get_request_info(conn)?.pointee else { return 500 }
        let length = info.content_length
        let method = info.request_method.map { String(cString: $0) } ?? ""
        var response: HTTPResponse
        if length > Int64(limits.maxBody) {
            response = .error(413, "request body of \(length) bytes: at most \(limits.maxBody) accepted")
        } else if length < 0 && (method == "POST" || method == "PUT") {
            response = .error(411, "a request body needs Content-Length")
        } else {
            var body = Data()
            if length > 0 {
                var buffer = [UInt8](repeating: 0, count: Int(length))
                var got = 0
                while got < buffer.count {
                    let n = buffer.withUnsafeMutableBytes { mg_read(conn, $0.baseAddress! + got, $0.count - got) }
                    if n <= 0 { break }
                    got += Int(n)
                }
                body = Data(buffer[0..<got])
            }
            response = onLargeStack(request(conn, body: body))
        }
        write(response, to: conn)
        return Int32(response.status)
    }

    /// Runs the handler on a thread with a full-size stack: CivetWeb's workers have small ones,
    /// and describing a pattern runs the compiler and the virtual device.
    private func onLargeStack(_ request: HTTPRequest) -> HTTPResponse {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var response = HTTPResponse.error(500, "no answer")
        let handle = self.handle
        let thread = Thread {
            response = handle(request)
            done.signal()
        }
        thread.stackSize = 16 << 20
        thread.start()
        done.wait()
        return response
    }

    /// The request line, the headers the studio reads, and `body`.
    private func request(_ conn: OpaquePointer, body: Data) -> HTTPRequest {
        let info = mg_get_request_info(conn)?.pointee
        var headers: [String: String] = [:]
        for name in ["Host", "Origin", "X-Thrum-Token", "Content-Type", "Sec-Fetch-Site"] {
            if let value = mg_get_header(conn, name) { headers[name.lowercased()] = String(cString: value) }
        }
        let path = info?.local_uri_raw.map { String(cString: $0) } ?? info?.local_uri.map { String(cString: $0) } ?? "/"
        return HTTPRequest(
            method: info?.request_method.map { String(cString: $0) } ?? "",
            path: path,
            query: HTTPRequest.parseQuery(info?.query_string.map { String(cString: $0) }),
            headers: headers, body: body)
    }

    private func write(_ response: HTTPResponse, to conn: OpaquePointer) {
        let head =
            "HTTP/1.1 \(response.status) \(HTTPResponse.reason(response.status))\r\n"
            + "Content-Type: \(response.contentType)\r\nContent-Length: \(response.body.count)\r\n"
            // A body left unread (413, 411) ends the connection: its bytes are not a next request.
            + (response.status == 413 || response.status == 411 ? "Connection: close\r\n" : "")
            + "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n"
            + "Content-Security-Policy: default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
            + "connect-src 'self'; frame-ancestors 'none'\r\n\r\n"
        var bytes = Array(head.utf8)
        _ = mg_write(conn, &bytes, bytes.count)
        if !response.body.isEmpty {
            response.body.withUnsafeBytes { _ = mg_write(conn, $0.baseAddress, $0.count) }
        }
    }
}
