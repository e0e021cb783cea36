// The `thrum` command-line tool: a thin shell over the library modules.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let exitCode = CommandRouter.run(Array(CommandLine.arguments.dropFirst()))
exit(exitCode)
