import Foundation

// Every error this module throws says what happened in `localizedDescription` (not "The operation
// could not be completed"): its message is its `description`.

extension PatternError: LocalizedError {
    public var errorDescription: String? { description }
}

extension JSONSyntaxError: LocalizedError {
    public var errorDescription: String? { description }
}

extension PresetError: LocalizedError {
    public var errorDescription: String? { description }
}
