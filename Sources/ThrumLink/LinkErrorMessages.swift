import Foundation
import ThrumWire

// The module's errors carry their message in `localizedDescription`.

extension LinkFailure: LocalizedError {
    public var errorDescription: String? { description }
}

extension TransportError: LocalizedError {
    public var errorDescription: String? { description }
}

extension SystemErrno: LocalizedError {
    var errorDescription: String? { description }
}

// ThrumWire keeps out of Foundation (it mirrors the C codec); its errors reach callers through
// the link, which gives them their message here.
extension WireError: LocalizedError {
    public var errorDescription: String? { description }
}
