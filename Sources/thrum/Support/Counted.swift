/// "1 event", "4 events": a count with its noun, for messages a user reads.
func counted(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}
