import XCTest
final class ThrumTimeTestsPlaceholder: XCTestCase { func testPlaceholder() { XCTAssertTrue(true) } }
