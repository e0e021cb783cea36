import Foundation

// The module's errors carry their message in `localizedDescription`.

extension ProfileError: LocalizedError {
    public var errorDescription: String? { description }
}
