import Foundation

/// The studio's page, embedded in the binary (generated from Web/ by tools/gen-studio-assets.py,
/// which StudioAssetsTests keeps honest): one HTML document with its style and script inlined,
/// so the page needs no second request (each would need the token) and the binary no files.
public enum StudioAssets {
    /// The page served at `/`.
    public static let page: String = indexHTML
        .replacingFirst("/*STYLE*/", with: styleCSS)
        .replacingFirst("/*APP*/", with: appJS)

    /// The embedded copies by their file names under Web/ (for the test that compares them).
    public static let files: [String: String] = ["index.html": indexHTML, "app.js": appJS, "style.css": styleCSS]
}

extension String {
    fileprivate func replacingFirst(_ marker: String, with replacement: String) -> String {
        guard let range = range(of: marker) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}
