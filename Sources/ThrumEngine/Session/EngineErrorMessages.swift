import Foundation

// The module's errors carry their message in `localizedDescription` (``HapticError`` beside its type).

extension EngineError: LocalizedError {
    public var errorDescription: String? { description }
}

extension LibraryClientError: LocalizedError {
    public var errorDescription: String? { description }
}
