import XCTest
final class ThrumWireTestsPlaceholder: XCTestCase { func testPlaceholder() { XCTAssertTrue(true) } }
