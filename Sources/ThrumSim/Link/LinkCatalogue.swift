/// The named link models every timing figure is measured on (`thrum bench --link NAME`), each
/// built from a seed so a run is reproducible. docs/timing.md gives each model's source.
public struct LinkProfile: Sendable {
    /// Short name used on the command line and as the key in `thrum bench --json`'s `links`.
    public var name: String
    /// One line for people.
    public var summary: String
    /// Builds the model for one run.
    public var make: @Sendable (_ seed: UInt64) -> any LinkModel

    /// Creates a profile.
    public init(name: String, summary: String, make: @escaping @Sendable (_ seed: UInt64) -> any LinkModel) {
        self.name = name
        self.summary = summary
        self.make = make
    }
}

/// The link matrix of issue 7 and DESIGN.md §6.
extension LinkProfile {
    /// This profile with the USB start-of-frame grid and IN transfers hidden from the device: it
    /// sends no frame times and no ACK departures (as behind a serial bridge, or a device of
    /// protocol version 2), every delivery and wake-up as before.
    public var withoutStartOfFrames: LinkProfile {
        let base = self
        return LinkProfile(name: name + "-no-sof", summary: summary + "; no start-of-frame times or ACK departures") { seed in
            HiddenStartOfFrames(base: base.make(seed))
        }
    }
}

/// A link whose device sees no start of frame and no IN transfer (``LinkProfile/withoutStartOfFrames``):
/// the protocol's defaults of ``LinkModel`` for both.
struct HiddenStartOfFrames: LinkModel {
    var base: any LinkModel

    mutating func deliver(_ bytes: inout [UInt8], writtenAt time: UInt64, direction: LinkDirection) -> UInt64? {
        base.deliver(&bytes, writtenAt: time, direction: direction)
    }

    mutating func hostWakeLatency(at time: UInt64) -> UInt64 { base.hostWakeLatency(at: time) }

    var lineByteTime: Double? { base.lineByteTime }
}

public enum LinkCatalogue {
    /// Host wake-up latency of a busy desktop: 0.5–8 ms, uniform (the brief's figure).
    public static let wakeJitter = JitterDistribution.uniform(500...8_000)
    /// The same with long-tail stalls: 2 % of wake-ups 15–60 ms late.
    public static let stallJitter = JitterDistribution.mixture(
        body: wakeJitter, tail: .uniform(15_000...60_000), tailProbability: 0.02)
    /// Where in a USB full-speed frame host → device data lands (after other traffic).
    public static let usbLanding = JitterDistribution.uniform(100...400)
    /// How far the host controller's crystal (the USB frame grid) runs from the host's clock, ppm:
    /// the host's monotonic clock follows NTP's correction of the platform crystal, the host
    /// controller runs on it uncorrected (crystals: tens of ppm).
    public static let usbFrameClockPPM = 25.0

    /// Every profile, in the order reports list them.
    public static let all: [LinkProfile] = [
        LinkProfile(name: "ideal", summary: "symmetric 100 µs each way, no jitter (reference)") { _ in
            FixedLatencyLink(latency: 100)
        },
        LinkProfile(name: "usb-fs", summary: "native USB full-speed CDC: data lands 100–400 µs into the 1 ms frame, the device sees each start of frame; 0.5–8 ms wake-up jitter") { seed in
            JitteredLink(base: usb(seed: seed), jitter: wakeJitter, seed: seed)
        },
        LinkProfile(name: "usb-fs-stalls", summary: "usb-fs with long-tail host stalls: 2 % of wake-ups 15–60 ms late") { seed in
            JitteredLink(base: usb(seed: seed), jitter: stallJitter, seed: seed)
        },
        LinkProfile(name: "ftdi-115200-16ms", summary: "FTDI bridge, 115 200 baud, latency timer 16 ms (factory); 0.5–8 ms wake-up jitter") { seed in
            JitteredLink(base: FtdiLink(uart: UartLink(baud: 115_200), latencyTimer: 16_000, timerPhase: seed &* 7_919), jitter: wakeJitter, seed: seed)
        },
        LinkProfile(name: "ftdi-115200-1ms", summary: "FTDI bridge, 115 200 baud, latency timer 1 ms (what thrum asks the Linux driver for, SerialPortTransport.latencyTimerLowered); 0.5–8 ms wake-up jitter") { seed in
            JitteredLink(base: FtdiLink(uart: UartLink(baud: 115_200), latencyTimer: 1_000, timerPhase: seed &* 7_919), jitter: wakeJitter, seed: seed)
        },
        LinkProfile(name: "ftdi-1m-1ms", summary: "FTDI bridge, 1 Mbaud, latency timer 1 ms; 0.5–8 ms wake-up jitter") { seed in
            JitteredLink(base: FtdiLink(uart: UartLink(baud: 1_000_000), latencyTimer: 1_000, timerPhase: seed &* 7_919), jitter: wakeJitter, seed: seed)
        },
        LinkProfile(name: "ch340", summary: "CH340 bridge, 115 200 baud (hands bytes over after two idle characters); 0.5–8 ms wake-up jitter") { seed in
            JitteredLink(base: Ch340Link(uart: UartLink(baud: 115_200)), jitter: wakeJitter, seed: seed)
        },
    ]

    /// The profile called `name`, nil when there is none.
    public static func profile(named name: String) -> LinkProfile? { all.first { $0.name == name } }

    /// The realistic USB link every single-link figure uses.
    public static var usbFullSpeed: LinkProfile { profile(named: "usb-fs")! }

    private static func usb(seed: UInt64) -> UsbFullSpeedLink {
        UsbFullSpeedLink(outboundLanding: usbLanding, frameClockPPM: usbFrameClockPPM, seed: seed ^ 0x05B)
    }
}
