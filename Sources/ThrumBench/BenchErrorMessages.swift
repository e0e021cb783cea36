import Foundation

// The module's errors carry their message in `localizedDescription`.

extension BenchError: LocalizedError {
    public var errorDescription: String? { description }
}

extension SimulationClockError: LocalizedError {
    public var errorDescription: String? { description }
}

extension AVRTraceError: LocalizedError {
    public var errorDescription: String? { description }
}

extension AVRBench.Failure: LocalizedError {
    public var errorDescription: String? { description }
}
