import Foundation
import ThrumStudio
import XCTest

/// The token, Host and Origin checks every request passes.
final class RequestGuardTests: XCTestCase {
    let checks = RequestGuard(token: "abc123", port: 8080, names: RequestGuard.names(listenHost: "127.0.0.1"))

    private func request(host: String? = "127.0.0.1:8080", origin: String? = nil, token: String? = "abc123", query: String? = nil) -> HTTPRequest {
        var headers: [String: String] = [:]
        if let host { headers["host"] = host }
        if let origin { headers["origin"] = origin }
        if let token { headers["x-thrum-token"] = token }
        return HTTPRequest(method: "GET", path: "/", query: HTTPRequest.parseQuery(query), headers: headers)
    }

    func testAcceptsLoopbackNamesWithTheToken() {
        for host in ["127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080", "[::1]:8080"] {
            XCTAssertNil(checks.check(request(host: host, origin: "http://\(host)")), host)
        }
        XCTAssertNil(checks.check(request(token: nil, query: "token=abc123")))
    }

    func testRefusesForeignHostOriginAndToken() {
        XCTAssertEqual(checks.check(request(host: nil)), .badHost(nil))
        XCTAssertEqual(checks.check(request(host: "evil.example:8080")), .badHost("evil.example:8080"))
        XCTAssertEqual(checks.check(request(host: "127.0.0.1:9090")), .badHost("127.0.0.1:9090"))
        XCTAssertEqual(checks.check(request(origin: "http://evil.example")), .badOrigin("http://evil.example"))
        XCTAssertEqual(checks.check(request(origin: "https://127.0.0.1:8080")), .badOrigin("https://127.0.0.1:8080"))
        XCTAssertEqual(checks.check(request(origin: "null")), .badOrigin("null"))
        XCTAssertEqual(checks.check(request(token: nil)), .badToken)
        XCTAssertEqual(checks.check(request(token: "abc12")), .badToken)
        XCTAssertEqual(checks.check(request(token: "abc1234")), .badToken)
        XCTAssertEqual(checks.check(request(token: nil, query: "token=nope")), .badToken)
    }

    func testTokensAreFreshAndLong() {
        let a = RequestGuard.makeToken(), b = RequestGuard.makeToken()
        XCTAssertNotEqual(a, b)
        XCTAssertEqual(a.count, 32)
    }

    func testListenAddressIsAddedToTheNames() {
        XCTAssertTrue(RequestGuard.names(listenHost: "192.0.2.7").contains("192.0.2.7"))
        XCTAssertTrue(RequestGuard.names(listenHost: "fe80::1").contains("[fe80::1]"))
        XCTAssertFalse(RequestGuard.names(listenHost: "0.0.0.0").contains("0.0.0.0"))
    }
}
