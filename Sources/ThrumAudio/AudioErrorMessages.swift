import Foundation

// The module's errors carry their message in `localizedDescription`.

extension AudioError: LocalizedError {
    public var errorDescription: String? { description }
}

extension ALSAErrno: LocalizedError {
    public var errorDescription: String? { description }
}
