import XCTest
final class ThrumLinkTestsPlaceholder: XCTestCase { func testPlaceholder() { XCTAssertTrue(true) } }
