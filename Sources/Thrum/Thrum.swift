// One import for the whole Core-Haptics-shaped API, as `import CoreHaptics` (and UIKit's feedback
// generators) is on Apple's systems: the engine, players, patterns and their AHAP reader and
// writer, the feedback generators and presets, actuator profiles, host time, and the audio path
// (sound devices, audio resources).
@_exported import ThrumAudio
@_exported import ThrumCompiler
@_exported import ThrumEngine
@_exported import ThrumPattern
@_exported import ThrumTime
