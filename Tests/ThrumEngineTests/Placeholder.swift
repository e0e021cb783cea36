import XCTest
final class ThrumEngineTestsPlaceholder: XCTestCase { func testPlaceholder() { XCTAssertTrue(true) } }
