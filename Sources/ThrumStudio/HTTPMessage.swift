import Foundation

/// One HTTP request as the studio's handlers see it: what CivetWeb parsed, with the body read
/// (never more than ``HTTPServer/Limits/maxBody`` bytes).
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, …
    public var method: String
    /// The path, URL-decoded, without the query (`/api/files`).
    public var path: String
    /// The query's fields, URL-decoded (a field given twice keeps the last).
    public var query: [String: String]
    /// The headers the studio reads, by lower-case name (`host`, `origin`, `x-thrum-token`, …).
    public var headers: [String: String]
    /// The body.
    public var body: Data

    /// Creates a request (the server builds them; tests build them by hand).
    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:], body: Data = Data()) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// The header named `name` (any case).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// Splits a raw query string (`a=1&b=x%20y`) into URL-decoded fields.
    public static func parseQuery(_ raw: String?) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in (raw ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (s: Substring) in String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s) }
            guard let key = parts.first.map(decode), !key.isEmpty else { continue }
            fields[key] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }
}

/// What a handler answers.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// `Content-Type`.
    public var contentType: String
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(status: Int, contentType: String, body: Data) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }

    /// A JSON body from a JSON-serialisable object.
    public static func json(_ object: Any, status: Int = 200) -> HTTPResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return HTTPResponse(status: status, contentType: "application/json; charset=utf-8", body: data)
    }

    /// `{"error": message}` with `status`.
    public static func error(_ status: Int, _ message: String) -> HTTPResponse {
        json(["error": message], status: status)
    }

    /// A text body.
    public static func text(_ text: String, type: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, contentType: type, body: Data(text.utf8))
    }

    /// The reason phrase of the status codes the studio uses.
    public static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 400: return "Bad Request"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 409: return "Conflict"
        case 411: return "Length Required"
        case 413: return "Payload Too Large"
        case 422: return "Unprocessable Entity"
        case 500: return "Internal Server Error"
        case 503: return "Service Unavailable"
        default: return "Status"
        }
    }
}
