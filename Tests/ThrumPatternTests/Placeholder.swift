import XCTest
final class ThrumPatternTestsPlaceholder: XCTestCase { func testPlaceholder() { XCTAssertTrue(true) } }
