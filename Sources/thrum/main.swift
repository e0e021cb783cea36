// The `thrum` command-line tool: a thin shell over the library modules.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

ProcessStreams.prepare()
let exitCode = CommandRouter.run(Array(CommandLine.arguments.dropFirst()))
exit(ProcessStreams.finish(status: exitCode))
