import Foundation
import ThrumLink

/// The STM32F103's ROM bootloader's USART protocol (ST AN3155) on a pseudo-terminal, enough for
/// the real `stm32flash` to write and verify an image: 0x7F → ACK, GET, GET_VERSION, GET_ID
/// (0x410, medium density), READ_MEMORY, WRITE_MEMORY, ERASE (page list or global) and
/// EXTENDED_ERASE, GO. The flash (128 KiB at 0x08000000, 1 KiB pages) is what a test compares with
/// the image. Served by a thread until ``stop()``.
final class STM32ROMBootloader: @unchecked Sendable {
    static let flashBase: UInt32 = 0x0800_0000
    static let flashSize = 128 * 1024
    static let ack: UInt8 = 0x79
    static let nack: UInt8 = 0x1F

    let slavePath: String
    private let terminal: PseudoTerminal
    private let lock = NSLock()
    private var memory = [UInt8](repeating: 0xFF, count: STM32ROMBootloader.flashSize)
    private var stopped = false
    private var thread: Thread?
    /// What ran, for the test's messages: command bytes in order.
    private(set) var commands: [UInt8] = []
    /// The address of the last GO.
    private(set) var goAddress: UInt32?

    init() throws {
        // The device side closed: stm32flash's open is the only one (a held side would show as
        // another process on the port).
        terminal = try PseudoTerminal(keepsDeviceSideOpen: false)
        slavePath = terminal.devicePath
        let thread = Thread { [self] in serve() }
        self.thread = thread
        thread.start()
    }

    /// The flash as the bootloader holds it.
    var flash: [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        return memory
    }

    var log: (commands: [UInt8], go: UInt32?) {
        lock.lock()
        defer { lock.unlock() }
        return (commands, goAddress)
    }

    func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
        thread?.cancel()
        while let thread, !thread.isFinished { usleep(1000) }
        terminal.close()
    }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    /// One byte from the host; nil when stopped (or the master was closed).
    private func byte() -> UInt8? {
        while !isStopped {
            do {
                if let value = try terminal.master.read(maxCount: 1, timeout: .milliseconds(50)).first { return value }
            } catch {
                usleep(10_000)  // no client has the device side open yet
            }
        }
        return nil
    }

    private func bytes(_ count: Int) -> [UInt8]? {
        var out: [UInt8] = []
        for _ in 0..<count {
            guard let b = byte() else { return nil }
            out.append(b)
        }
        return out
    }

    private func send(_ data: [UInt8]) {
        try? terminal.master.write(data)
    }

    /// Four address bytes and their XOR checksum; the address when valid.
    private func address() -> UInt32? {
        guard let field = bytes(5), field[0] ^ field[1] ^ field[2] ^ field[3] == field[4] else { return nil }
        return UInt32(field[0]) << 24 | UInt32(field[1]) << 16 | UInt32(field[2]) << 8 | UInt32(field[3])
    }

    private func offset(_ address: UInt32, _ count: Int) -> Int? {
        guard address >= Self.flashBase else { return nil }
        let start = Int(address - Self.flashBase)
        return start + count <= Self.flashSize ? start : nil
    }

    private func serve() {
        var synced = false
        while let first = byte() {
            if !synced || first == 0x7F {
                if first == 0x7F {
                    send([synced ? Self.nack : Self.ack])  // a second 0x7F after sync is NACKed, as on the chip
                    synced = true
                }
                continue
            }
            guard let complement = byte() else { return }
            guard complement == first ^ 0xFF else {
                send([Self.nack])
                continue
            }
            lock.lock()
            commands.append(first)
            lock.unlock()
            switch first {
            case 0x00:  // GET
                let supported: [UInt8] = [0x00, 0x01, 0x02, 0x11, 0x21, 0x31, 0x43, 0x63, 0x73, 0x82, 0x92]
                send([Self.ack, UInt8(supported.count), 0x22] + supported + [Self.ack])
            case 0x01:  // GET_VERSION
                send([Self.ack, 0x22, 0x00, 0x00, Self.ack])
            case 0x02:  // GET_ID
                send([Self.ack, 0x01, 0x04, 0x10, Self.ack])
            case 0x11:  // READ_MEMORY
                send([Self.ack])
                guard let address = address() else { send([Self.nack]); continue }
                send([Self.ack])
                guard let n = bytes(2), n[0] ^ n[1] == 0xFF, let start = offset(address, Int(n[0]) + 1) else {
                    send([Self.nack])
                    continue
                }
                lock.lock()
                let data = Array(memory[start..<(start + Int(n[0]) + 1)])
                lock.unlock()
                send([Self.ack] + data)
            case 0x21:  // GO
                send([Self.ack])
                guard let address = address() else { send([Self.nack]); continue }
                lock.lock()
                goAddress = address
                lock.unlock()
                send([Self.ack])
                synced = false  // the application runs; the bootloader is gone until the next reset
            case 0x31:  // WRITE_MEMORY
                send([Self.ack])
                guard let address = address() else { send([Self.nack]); continue }
                send([Self.ack])
                guard let n = byte(), let data = bytes(Int(n) + 1), let checksum = byte(),
                    data.reduce(n, ^) == checksum, let start = offset(address, data.count)
                else {
                    send([Self.nack])
                    continue
                }
                lock.lock()
                // Flash programming clears bits only: writing over unerased flash shows.
                for (index, value) in data.enumerated() { memory[start + index] &= value }
                lock.unlock()
                send([Self.ack])
            case 0x43:  // ERASE: 0xFF 0x00 (all), or N, N+1 page numbers, checksum
                send([Self.ack])
                guard let n = byte() else { return }
                if n == 0xFF {
                    guard byte() == 0x00 else { send([Self.nack]); continue }
                    erase(pages: Array(0..<(Self.flashSize / 1024)))
                } else {
                    guard let pages = bytes(Int(n) + 1), let checksum = byte(), pages.reduce(n, ^) == checksum else {
                        send([Self.nack])
                        continue
                    }
                    erase(pages: pages.map(Int.init))
                }
                send([Self.ack])
            default:
                send([Self.nack])
            }
        }
    }

    private func erase(pages: [Int]) {
        lock.lock()
        for page in pages where page * 1024 < Self.flashSize {
            for index in (page * 1024)..<((page + 1) * 1024) { memory[index] = 0xFF }
        }
        lock.unlock()
    }
}
