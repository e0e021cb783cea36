import Foundation
import ThrumAudio
import ThrumPattern
import ThrumTime

/// One audio event's onset: when it was asked for and when the sound device plays it, both on
/// the engine clock (s).
public struct AudioOnsetRecord: Equatable, Sendable {
    /// The player's id.
    public var playerID: Int
    /// Index of the event in the pattern.
    public var patternIndex: Int
    /// `AudioCustom` or `AudioContinuous`.
    public var type: String
    /// When the pattern asked for it, engine s.
    public var requestedTime: Double
    /// When its first frame reaches the speaker, engine s, as the playout clock measures it.
    public var onsetTime: Double
    /// Sound-device frame of the onset (with its fraction), for checks against a modelled device.
    public var frame: Double
}

/// The engine's audio path: the players' audio events rendered onto the sound device's
/// timeline, which ``ThrumAudio/AudioOutput`` keeps mapped onto the engine clock. The engine
/// calls it from its run loop (``service(_:)``, ``nextWake(now:)``) and when a player is made
/// (``prepare(_:registry:)``); it reads the players' timelines (runs), so starts, stops, pauses,
/// seeks, loops and rates apply to the sound as to the drive. See `docs/audio.md`.
public final class EngineAudio {
    /// The sound device feed.
    public let output: AudioOutput
    /// Directories relative `EventWaveformPath`s are looked up in, in order (the AHAP file's first).
    public var searchDirectories: [String]
    /// Onsets of audio events played, in play order.
    public private(set) var onsets: [AudioOnsetRecord] = []
    /// The first error the sound device gave (audio then stops; haptics go on).
    public private(set) var deviceError: AudioError?
    private let renderer: AudioEventRenderer
    private var programs: [Int: (rate: Double, program: AudioProgram)] = [:]
    private var sources: [Int: (pattern: HapticPattern, resources: [Int: AudioResource])] = [:]
    private var seen: Set<String> = []

    /// An audio path onto `sink`, timed on `clock` (the engine's).
    public init(
        sink: AudioSink, clock: HostClock, configuration: AudioOutput.Configuration = .init(),
        searchDirectories: [String] = []
    ) {
        output = AudioOutput(sink: sink, clock: clock, configuration: configuration)
        renderer = AudioEventRenderer(sampleRate: sink.sampleRate)
        self.searchDirectories = searchDirectories
    }

    /// How far ahead of now an immediate start with audio is put so its sound is on time, s.
    public var startLead: Double { output.startLead }

    // MARK: Players

    /// Loads the sounds of `pattern`'s `AudioCustom` events (registered resources, or files by
    /// `EventWaveformPath`), renders its audio, and gives each `AudioCustom` event at least the
    /// length it sounds for (so the player lasts as long as its sound).
    /// - Throws: ``HapticError``: `badEventEntry` (−4830) for an `EventWaveformPath` found nowhere,
    ///   `invalidAudioResource` (−4824) for an unregistered id or a file over a limit or undecodable.
    func prepare(_ pattern: HapticPattern, registry: AudioResourceRegistry) throws -> (
        HapticPattern, AudioProgram, [Int: AudioResource]
    ) {
        var loaded: [Int: AudioResource] = [:]
        for (i, e) in pattern.events.enumerated() where e.type == .audioCustom {
            if let id = e.audioResourceID {
                guard let r = registry[id] else {
                    throw HapticError(.invalidAudioResource, "events[\(i)]: audio resource \(id) is not registered")
                }
                loaded[i] = r
            } else if let w = e.waveform {
                guard let path = AudioResource.resolve(w.path, in: searchDirectories) else {
                    let looked =
                        w.path.hasPrefix("/") ? "" : " (looked in \(searchDirectories.joined(separator: ", ")))"
                    throw HapticError(
                        .badEventEntry, "events[\(i)].EventWaveformPath: audio file '\(w.path)' not found\(looked)")
                }
                do {
                    let options = AudioResource.Options(
                        useVolumeEnvelope: w.useVolumeEnvelope, loopEnabled: w.loopEnabled)
                    loaded[i] = try AudioResource.load(path: path, options: options, limits: registry.limits)
                } catch {
                    throw HapticError(error.code, "events[\(i)].EventWaveformPath: \(error.description)")
                }
            } else {
                throw HapticError(.badEventEntry, "events[\(i)]: AudioCustom without an audio file or resource")
            }
        }
        let program = try render(pattern, loaded)
        var adjusted = pattern
        // A file's event lasts as long as its sound; an EventDuration longer than the sound pads the
        // pattern with silence, as Core Haptics does (a shorter one already truncated the sound).
        for v in program.voices where adjusted.events[v.patternIndex].type == .audioCustom {
            adjusted.events[v.patternIndex].duration = max(adjusted.events[v.patternIndex].duration, v.buffer.duration)
        }
        return (adjusted, program, loaded)
    }

    private func render(_ pattern: HapticPattern, _ loaded: [Int: AudioResource]) throws -> AudioProgram {
        do {
            return try renderer.render(pattern) { (i: Int) throws(AudioError) -> AudioResource in
                guard let r = loaded[i] else {
                    throw AudioError(.invalidAudioResource, subject: "events[\(i)]", "no sound loaded")
                }
                return r
            }
        } catch {
            throw HapticError(error.code, error.description)
        }
    }

    /// Keeps what `prepare` made for player `id` (`pattern` as given, before `prepare`).
    func adopt(player id: Int, pattern: HapticPattern, program: AudioProgram, resources: [Int: AudioResource]) {
        programs[id] = (1, program)
        sources[id] = (pattern, resources)
    }

    /// Whether `pattern` has audio events this path plays.
    static func hasAudio(_ pattern: HapticPattern) -> Bool {
        pattern.events.contains { !$0.type.isHaptic }
    }

    /// Audio controls sent at run time that shape events where they start (the release control:
    /// where they end), and the event parameter each adds to — as the compiler folds haptic shape
    /// controls into events. `AudioVolumeControl` is applied while mixing instead.
    private static let shapeControls:
        [(control: HapticDynamicParameter.ID, parameter: HapticEvent.ParameterID, atEnd: Bool)] = [
            (.audioPanControl, .audioPan, false), (.audioPitchControl, .audioPitch, false),
            (.audioBrightnessControl, .audioBrightness, false),
            (.audioAttackTimeControl, .attackTime, false), (.audioDecayTimeControl, .decayTime, false),
            (.audioReleaseTimeControl, .releaseTime, true),
        ]
    private var shapedPrograms: [Int: [String: AudioProgram]] = [:]

    /// The program of `player`'s run `run` (event times scaled by its rate; sounds keep their
    /// pitch), with the run-time shape controls in force at each event's start folded in.
    private func program(for player: StreamingPatternPlayer, run: StreamingPatternPlayer.Run) -> AudioProgram? {
        let rate = run.compiled.key.rate
        let active = Self.shapeControls.filter { player.otherControls[$0.control].map { !$0.isNeutral } ?? false }
        if active.isEmpty {
            if let p = programs[player.playerID], p.rate == rate { return p.program }
            guard let source = sources[player.playerID] else { return nil }
            guard let p = try? render(source.pattern.scaled(byRate: rate), source.resources) else { return nil }
            programs[player.playerID] = (rate, p)
            return p
        }
        guard let source = sources[player.playerID] else { return nil }
        var pattern = source.pattern.scaled(byRate: rate)
        var signature = "\(rate)"
        for i in pattern.events.indices where !pattern.events[i].type.isHaptic {
            let e = pattern.events[i]
            for shape in active {
                let t = run.origin.seconds + e.relativeTime + (shape.atEnd ? e.duration : 0)
                guard let delta = player.otherControls[shape.control]?.value(at: EngineTime(seconds: t)), delta != 0
                else { continue }
                let base: Float
                if shape.parameter == .audioBrightness {
                    base = Float(
                        e.type == .audioContinuous
                            ? AudioEventRenderer.defaultToneBrightness : AudioEventRenderer.defaultCustomBrightness)
                } else {
                    base = 0
                }
                if let j = pattern.events[i].eventParameters.lastIndex(where: { $0.parameterID == shape.parameter }) {
                    pattern.events[i].eventParameters[j].value += Float(delta)
                } else {
                    pattern.events[i].eventParameters.append(
                        HapticEventParameter(parameterID: shape.parameter, value: base + Float(delta)))
                }
                signature += "|\(i).\(shape.parameter.rawValue)=\(delta)"
            }
        }
        if let cached = shapedPrograms[player.playerID]?[signature] { return cached }
        guard let p = try? render(pattern, source.resources) else { return nil }
        if (shapedPrograms[player.playerID]?.count ?? 0) >= 8 { shapedPrograms[player.playerID] = [:] }
        shapedPrograms[player.playerID, default: [:]][signature] = p
        return p
    }

    // MARK: Run loop

    /// When the engine must next call ``service(_:)``.
    func nextWake(now: EngineTime) -> EngineTime {
        EngineTime(output.nextService(after: now.hostTime))
    }

    /// Feeds the sound device: renders every playing player's audio for the frames due.
    func service(_ engine: HapticEngine) {
        guard deviceError == nil else { return }
        let players = engine.playsHapticsOnly || engine.isMutedForAudio ? [] : engine.device.players.filter { $0.host === engine && !$0.isMuted }
        do {
            let before = output.framesWritten
            try output.service { out, frames, start, step in
                for p in players {
                    for run in p.runs {
                        guard let program = program(for: p, run: run) else { continue }
                        let origin = run.origin.seconds
                        let window = run.lo.seconds..<run.hi.seconds
                        let volume = p.otherControls[.audioVolumeControl]
                        program.mix(
                            into: &out, frames: frames, start: start - origin, step: step, window: window,
                            gain: { t in Float(volume?.value(at: EngineTime(seconds: t + origin)) ?? 1) })
                        noteOnsets(
                            program, player: p, run: run.serial, pass: run.pass, origin: origin, window: window,
                            from: min(start, renderedUntil ?? start), start: start, step: step, frames: frames,
                            firstFrame: before)
                    }
                }
                renderedUntil = start + Double(frames) * step
            }
        } catch {
            deviceError = error
        }
    }

    /// Host time up to which frames were rendered (the next block starts there, give or take
    /// the playout clock's refit).
    private var renderedUntil: Double?

    /// Records the onsets of voices starting in this block: host [from, start + frames × step),
    /// `from` reaching back to the previous block's end so that a refit of the playout clock
    /// between blocks leaves no gap an onset could fall in.
    private func noteOnsets(
        _ program: AudioProgram, player: StreamingPatternPlayer, run: Int, pass: Int, origin: Double,
        window: Range<Double>, from: Double, start: Double, step: Double, frames: Int, firstFrame: Int
    ) {
        let lo = start - origin, hi = lo + Double(frames) * step
        let earliest = from - origin
        for v in program.voices
        where v.requestedTime >= earliest && v.requestedTime < hi && window.contains(v.requestedTime) {
            let key = "\(player.playerID).\(run).\(pass).\(v.patternIndex)"
            guard seen.insert(key).inserted else { continue }
            let frame = Double(firstFrame) + (v.requestedTime - lo) / step
            let onset = output.hostTime(ofFrame: frame) ?? (origin + v.requestedTime)
            onsets.append(
                AudioOnsetRecord(
                    playerID: player.playerID, patternIndex: v.patternIndex, type: v.type,
                    requestedTime: origin + v.requestedTime,
                    onsetTime: onset, frame: frame))
        }
    }

    /// Closes the sound device.
    public func close() { output.close() }
}
