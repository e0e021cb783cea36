/// A path into a JSON document such as `Pattern[3].Event.Time` (indices are 0-based).
struct JSONPath {
    enum Component {
        case key(String)
        case index(Int)
    }

    private(set) var components: [Component] = []

    mutating func push(_ c: Component) { components.append(c) }
    mutating func pop() { components.removeLast() }

    /// The dotted rendering; empty at the top level.
    var rendered: String {
        var out = ""
        for c in components {
            switch c {
            case .key(let k): out += out.isEmpty ? k : "." + k
            case .index(let i): out += "[\(i)]"
            }
        }
        return out
    }
}
