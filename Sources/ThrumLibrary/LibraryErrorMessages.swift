import Foundation

// The module's errors carry their message in `localizedDescription`.

extension LibraryImageError: LocalizedError {
    public var errorDescription: String? { description }
}

extension LibraryBuildError: LocalizedError {
    public var errorDescription: String? { description }
}
