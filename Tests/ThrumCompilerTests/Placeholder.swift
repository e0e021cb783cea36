import XCTest
final class ThrumCompilerTestsPlaceholder: XCTestCase { func testPlaceholder() { XCTAssertTrue(true) } }
