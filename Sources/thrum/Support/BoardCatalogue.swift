import Foundation

/// The boards Thrum's firmware runs on: what `thrum firmware list | build | flash` and the
/// simulator's bootloader mode (`thrum sim --mcu atmega328p --board B`) know about each. One table:
/// the wiring guide, `thrum doctor` and the completions read it too.
///
/// Pins are the firmware's own: ``PortPins``, generated from the pin headers the firmware builds
/// from (hardware/firmware/ports/*/pins.h) and kept equal to them by `WiringDiagramTests`;
/// `FirmwareListTests` checks the listed pins and the budgets against those headers and
/// hardware/firmware/Makefile.
enum BoardCatalogue {
    /// Where the firmware sources and builds are: in the checkout, or installed beside the binary
    /// (``ResourceRoot``).
    static var firmwareDirectory: String { ResourceRoot.path("hardware/firmware") }

    /// All supported boards, in the order `thrum firmware list` prints them.
    static let boards: [Board] = [uno, nano, nanoOld, bluePill]

    /// The boards `thrum sim --board` simulates: the AVR ones whose bootloader it runs.
    static var simulatedBoards: [Board] {
        boards.filter { $0.bootloader.simulatorHex != nil && $0.bootloader.tool.command == "avrdude" }
    }

    /// The board with this id, or nil.
    static func board(_ id: String) -> Board? { boards.first { $0.id == id } }

    /// The ids, for messages: `uno, nano, nano-old, bluepill`.
    static var ids: String { boards.map(\.id).joined(separator: ", ") }

    static let avrPins = Pins(
        PortPins.avr, triggersNote: "library image only; active low, a button to GND (internal pull-ups)")

    static let avrImages = [
        FirmwareImage(
            kind: .streaming, makeTarget: "avr", path: "build/avr/thrum.hex", budget: 12_288, protocolVersion: 0),
        FirmwareImage(
            kind: .library, makeTarget: "avr-library", path: "build/avr-library/thrum.hex", budget: 24_576,
            protocolVersion: 1),
    ]

    static let uno = Board(
        id: "uno", name: "Arduino Uno (R3)", mcu: "ATmega328P, 16 MHz, 32 KiB flash, 2 KiB RAM",
        hostLink: "USB serial through an ATmega16U2 bridge (a CH340 on most clones); DTR resets the board",
        bootloader: Bootloader(
            name: "optiboot", protocolName: "STK500v1 (avrdude -c arduino)", baud: 115_200, tool: .avrdude(part: "m328p"),
            entry: "DTR auto-reset: opening the port resets the board into the bootloader for about 1 s",
            bootSection: 0x7E00, highFuse: 0xDE,
            simulatorHex: ResourceRoot.path("hardware/avrsim/build/optiboot_atmega328.hex")),
        pins: avrPins, images: avrImages)

    static let nano = Board(
        id: "nano", name: "Arduino Nano (ATmega328P, new bootloader)", mcu: uno.mcu,
        hostLink: "USB serial through an FT232RL (a CH340 on most clones); DTR resets the board",
        bootloader: Bootloader(
            name: "optiboot", protocolName: "STK500v1 (avrdude -c arduino)", baud: 115_200, tool: .avrdude(part: "m328p"),
            entry: uno.bootloader.entry,
            // boards.txt gives the Nano the 1024-word boot section (high fuse 0xDA): the reset
            // vector is 0x7800 and runs through erased words into optiboot at 0x7E00.
            bootSection: 0x7800, highFuse: 0xDA,
            simulatorHex: ResourceRoot.path("hardware/avrsim/build/optiboot_atmega328.hex")),
        pins: avrPins, images: avrImages)

    static let nanoOld = Board(
        id: "nano-old", name: "Arduino Nano (ATmega328P, old bootloader)", mcu: uno.mcu, hostLink: nano.hostLink,
        bootloader: Bootloader(
            name: "ATmegaBOOT", protocolName: "STK500v1 (avrdude -c arduino)", baud: 57_600, tool: .avrdude(part: "m328p"),
            entry: uno.bootloader.entry, bootSection: 0x7800, highFuse: 0xDA,
            simulatorHex: "/usr/share/arduino/hardware/arduino/avr/bootloaders/atmega/ATmegaBOOT_168_atmega328.hex"),
        pins: avrPins, images: avrImages)

    static let bluePill = Board(
        id: "bluepill", name: "Blue Pill (STM32F103C8)", mcu: "STM32F103C8, 72 MHz, 64 KiB flash, 20 KiB RAM",
        hostLink: "a 3.3 V USB-serial adapter on USART1 (PA9 TX, PA10 RX); the native USB is not used",
        bootloader: Bootloader(
            name: "STM32 ROM bootloader", protocolName: "USART (AN3155, stm32flash)", baud: 115_200, tool: .stm32flash,
            entry: "BOOT0 jumper to 1, press reset, flash, BOOT0 back to 0 (no auto-reset)",
            bootSection: nil, highFuse: nil, simulatorHex: nil),
        pins: Pins(PortPins.cortexM, triggersNote: "no trigger inputs on this port yet"),
        images: [
            FirmwareImage(
                kind: .streaming, makeTarget: "cortex-m", path: "build/cortex-m/thrum.bin", budget: 30_720, protocolVersion: nil)
        ])
}

/// One supported board.
struct Board: Sendable {
    /// What `--board` takes.
    let id: String
    let name: String
    let mcu: String
    /// How it talks to the host.
    let hostLink: String
    let bootloader: Bootloader
    let pins: Pins
    let images: [FirmwareImage]

    /// The image of `kind`, if the board has one.
    func image(_ kind: FirmwareImage.Kind) -> FirmwareImage? { images.first { $0.kind == kind } }

    /// The application flash the bootloader leaves (AVR: below the boot section; STM32: the
    /// image budget, the rest holds the library).
    var applicationLimit: Int { bootloader.bootSection ?? images.map(\.budget).max() ?? 0 }
}

/// How a board's bootloader is reached and spoken to.
struct Bootloader: Sendable {
    enum Tool: Sendable {
        /// avrdude with the Arduino (STK500v1) programmer and this part.
        case avrdude(part: String)
        /// stm32flash over the ROM bootloader's USART protocol.
        case stm32flash

        var command: String {
            switch self {
            case .avrdude: return "avrdude"
            case .stm32flash: return "stm32flash"
            }
        }
    }

    let name: String
    let protocolName: String
    let baud: Int
    let tool: Tool
    /// How the board gets into its bootloader.
    let entry: String
    /// Byte address of the boot section (BOOTRST set: the reset vector), AVR only.
    let bootSection: Int?
    /// The high fuse a board of this kind ships with (BOOTSZ, BOOTRST), AVR only.
    let highFuse: Int?
    /// The bootloader image the simulator runs (`thrum sim --board`), nil when not simulated.
    let simulatorHex: String?
}

/// The pins the firmware uses, with the Arduino names where the board has them.
struct Pins: Sendable {
    let sda: String
    let scl: String
    /// The DRV2605L's EN input (driven high at start).
    let enable: String
    let triggers: [String]
    let triggersNote: String

    init(_ names: PinNames, triggersNote: String) {
        sda = names.sda
        scl = names.scl
        enable = names.enable
        triggers = names.triggers
        self.triggersNote = triggersNote
    }
}

/// A port's pins by the board's names, as its pin header defines them (``PortPins``, generated
/// from hardware/firmware/ports/*/pins.h by tools/gen-wiring.py).
struct PinNames: Sendable {
    let sda: String
    let scl: String
    let enable: String
    let triggers: [String]
}

/// A firmware image a board can run.
struct FirmwareImage: Sendable {
    enum Kind: String, Sendable {
        /// Patterns streamed from the host (`make avr`).
        case streaming
        /// The preset library, storage and trigger inputs (`make avr-library`).
        case library
    }

    let kind: Kind
    /// hardware/firmware/Makefile's target.
    let makeTarget: String
    /// The file flashed, relative to hardware/firmware (Intel HEX for AVR, raw binary for STM32).
    let path: String
    /// Flash budget in bytes (the Makefile's --flash-max).
    let budget: Int
    /// The protocol version the image reports in IDENTIFY, nil when not fixed here.
    let protocolVersion: UInt32?

    /// Path relative to the working directory (a checkout).
    var checkoutPath: String { BoardCatalogue.firmwareDirectory + "/" + path }
}
