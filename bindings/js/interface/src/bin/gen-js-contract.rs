//! Writes the generated JS contract (`earlyexit_js::render`): `bindings/js/api/contract.generated.mjs`
//! and the string-literal unions of `bindings/js/index.d.ts`. Run after changing a contract
//! table (`cargo run -p earlyexit-js --bin gen-js-contract`); prints what it changed.

fn main() -> std::io::Result<()> {
    let dir = earlyexit_js::render::js_dir();
    for (path, text) in earlyexit_js::render::files(&dir)? {
        if std::fs::read_to_string(&path).ok().as_deref() == Some(text.as_str()) {
            println!("unchanged {}", path.display());
        } else {
            std::fs::write(&path, text)?;
            println!("wrote {}", path.display());
        }
    }
    Ok(())
}
