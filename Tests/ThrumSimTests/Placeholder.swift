import XCTest
final class ThrumSimTestsPlaceholder: XCTestCase { func testPlaceholder() { XCTAssertTrue(true) } }
