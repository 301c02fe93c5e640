//! Known facts about the Game of Euler, read from `tests/data/euler-facts.txt`
//! and checked against the table solver.

use ply_core::{Game, Indexed, NoProgress, Table, Value};
use ply_games::Euler;

fn value(name: &str) -> Value {
    match name {
        "win" => Value::Win,
        "lose" => Value::Lose,
        "tie" => Value::Tie,
        "draw" => Value::Draw,
        other => panic!("unknown value '{other}'"),
    }
}

fn game(name: &str) -> Euler {
    let params = name.strip_prefix("euler:").expect("an euler:RxC game");
    Euler::from_params(params).unwrap()
}

#[test]
fn the_known_facts_hold() {
    let facts = include_str!("../data/euler-facts.txt");
    let mut checked = 0;
    for line in facts
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["value", name, position, expected] => {
                let game = game(name);
                let table = Table::build_symmetric(&game, &NoProgress).unwrap();
                let position = game.parse_position(position).unwrap();
                let outcome = table.outcome(game.rank(&position)).unwrap();
                assert_eq!(outcome.value, value(expected), "{line}");
            }
            ["losing", name, losing, nonfull] => {
                let game = game(name);
                let table = Table::build_symmetric(&game, &NoProgress).unwrap();
                let nonfull_indices = (0..game.index_len()).filter(|&i| i != game.full());
                assert_eq!(
                    nonfull_indices.clone().count().to_string(),
                    *nonfull,
                    "{line}"
                );
                let lost = nonfull_indices
                    .filter(|&i| table.outcome(i).unwrap().value == Value::Lose)
                    .count();
                assert_eq!(lost.to_string(), *losing, "{line}");
            }
            _ => panic!("malformed fact: {line}"),
        }
        checked += 1;
    }
    assert!(checked > 0, "no facts read");
}
