import Foundation
import ThrumTestSupport
import XCTest

/// The policy of the extra conformance runs: material outside the project (../shared) is found
/// relative to the package root; where it is missing a local run skips with a message and a CI run
/// (`CI=true`) fails.
final class SharedMaterialPolicyTests: XCTestCase {
    private let nowhere = FileManager.default.temporaryDirectory.appendingPathComponent(
        "thrum-no-shared-\(UUID().uuidString)")

    func testSharedIsBesideThePackageRoot() {
        XCTAssertEqual(
            SharedMaterial.directory,
            PackageRoot.url.deletingLastPathComponent().appendingPathComponent("shared").standardizedFileURL)
        XCTAssertTrue(FileManager.default.fileExists(atPath: PackageRoot.file("Package.swift").path))
    }

    func testMissingMaterialSkipsWithAClearMessageOutsideCI() {
        for environment in [[:], ["CI": "false"], ["CI": ""]] {
            XCTAssertThrowsError(try SharedMaterial.locate("corpus/ahap", in: nowhere, environment: environment)) {
                error in
                guard let skip = error as? XCTSkip else { return XCTFail("expected a skip, got \(error)") }
                let message = skip.message ?? ""
                XCTAssertTrue(message.contains(self.nowhere.appendingPathComponent("corpus/ahap").path), message)
                XCTAssertTrue(message.contains("../shared/corpus/ahap"), message)
            }
        }
    }

    func testMissingMaterialFailsUnderCI() {
        for value in ["true", "TRUE", "1", "yes"] {
            XCTAssertThrowsError(try SharedMaterial.locate("corpus/ahap", in: nowhere, environment: ["CI": value])) {
                error in
                XCTAssertFalse(error is XCTSkip, "CI=\(value) must fail, not skip")
                let missing = error as? SharedMaterialMissing
                XCTAssertEqual(missing?.relative, "corpus/ahap")
                XCTAssertTrue(missing?.description.contains("CI=true") ?? false)
            }
        }
    }

    func testPresentMaterialIsReturnedEitherWay() throws {
        let dir = nowhere.appendingPathComponent("corpus/ahap")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: nowhere) }
        for environment in [[:], ["CI": "true"]] {
            XCTAssertEqual(
                try SharedMaterial.locate("corpus/ahap", in: nowhere, environment: environment).path,
                dir.standardizedFileURL.path)
        }
    }
}
