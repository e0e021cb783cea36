import Foundation

/// The checks every request to the studio passes before anything else reads it: the per-run
/// token, the Host header (a DNS-rebinding page reaches the server under its own host name) and
/// the Origin header (a page of another site may send requests to loopback, but its browser
/// names the site).
public struct RequestGuard: Sendable {
    /// Why a request was refused.
    public enum Refusal: Equatable, Sendable, CustomStringConvertible {
        case badHost(String?)
        case badOrigin(String)
        case badToken

        public var description: String {
            switch self {
            case .badHost(let h): return "Host \(h.map { "'\($0)'" } ?? "missing") is not this studio's address"
            case .badOrigin(let o): return "Origin '\(o)' is not this studio's page"
            case .badToken: return "missing or wrong token (open the URL thrum studio printed)"
            }
        }
    }

    /// The token every request carries (`X-Thrum-Token` header or `token` query field).
    public let token: String
    /// The `host:port` values accepted in Host (and, as `http://host:port`, in Origin).
    public let hosts: Set<String>

    /// A guard for a server on `port` reached as `names` (`127.0.0.1`, `localhost`, `[::1]` for
    /// loopback).
    public init(token: String, port: Int, names: [String]) {
        self.token = token
        self.hosts = Set(names.map { "\($0.lowercased()):\(port)" })
    }

    /// The host names of a loopback server, plus `listenHost` when it is another address.
    public static func names(listenHost: String) -> [String] {
        var names = ["127.0.0.1", "localhost", "[::1]"]
        let bracketed = listenHost.contains(":") ? "[\(listenHost)]" : listenHost
        if !names.contains(bracketed) && listenHost != "0.0.0.0" && listenHost != "::" { names.append(bracketed) }
        return names
    }

    /// A new random token (128 bits, hex).
    public static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &generator)) }.joined()
    }

    /// Nil when `request` may be served; otherwise why not.
    public func check(_ request: HTTPRequest) -> Refusal? {
        guard let host = request.header("host")?.lowercased(), hosts.contains(host) else {
            return .badHost(request.header("host"))
        }
        if let origin = request.header("origin") {
            let lowered = origin.lowercased()
            guard lowered.hasPrefix("http://"), hosts.contains(String(lowered.dropFirst("http://".count))) else {
                return .badOrigin(origin)
            }
        }
        let given = request.header("x-thrum-token") ?? request.query["token"] ?? ""
        guard Self.equalInConstantTime(given, token) else { return .badToken }
        return nil
    }

    /// Compares without stopping at the first difference (the time taken says nothing about
    /// how much of the token matched).
    static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) {
            difference |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
        }
        return difference == 0
    }
}
