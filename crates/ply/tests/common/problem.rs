//! Judge problems run in process (`ply judge`), and the sample files
//! they are checked against.

/// The text of `tests/data/NAME`.
pub fn data(name: &str) -> String {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Asserts that `ply judge PROBLEM` answers `tests/data/NAME.in` with
/// `tests/data/NAME.out`, byte for byte.
pub fn assert_answers(problem: &str, name: &str) {
    let input = data(&format!("{name}.in"));
    assert_eq!(
        answer(problem, &input).unwrap(),
        data(&format!("{name}.out")),
        "{name}"
    );
}

/// What `ply judge PROBLEM` writes for `input`, or its error as text.
pub fn answer(problem: &str, input: &str) -> Result<String, String> {
    let mut output = Vec::new();
    ply::judge::run(problem, &mut input.as_bytes(), &mut output).map_err(|e| e.to_string())?;
    Ok(String::from_utf8(output).unwrap())
}
