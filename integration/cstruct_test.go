package integration

import (
	"strings"
	"testing"
)

// cstructFiles: records whose C++ structs nexus generates (`record Cpp =>
// Person = "struct"`, digest 1.4 and 3.8). people.hpp uses Person and
// Address by name and declares neither; Person holds an Address, a list
// of them and a list of strings, Address a sized integer. The same
// Person is "struct" in Python too, which is a plain dict there.
var cstructFiles = files{
	"main.loc": `module people (birthday, greet, oldest, newcomer, nameOf)

source Cpp from "people.hpp" ("birthday", "greet", "oldest")
source Py from "people.py" ("name_of" as nameOf)

record Address where
  city :: Str
  zip :: U16

record Person where
  name :: Str
  age :: Int
  home :: Address
  past :: [Address]
  tags :: [Str]

record Cpp => Address = "struct"
record Cpp => Person = "struct"
record Py => Person = "struct"

birthday :: Person -> Person
greet :: Person -> Str
oldest :: [Person] -> Person
nameOf :: Person -> Str

--' A person built in nexus code and passed through C++
newcomer :: Str -> Person
newcomer n = birthday {name = n, age = 0, home = {city = "Oslo", zip = 150}, past = [], tags = []}
`,
	"people.hpp": `#pragma once
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

inline Person birthday(Person p) {
  p.age += 1;
  p.past.push_back(p.home);
  p.home = Address{"Bergen", 5003};
  p.tags.push_back("older");
  return p;
}

inline std::string greet(const Person& p) {
  return "Hello " + p.name + " of " + p.home.city + " " + std::to_string(p.home.zip);
}

inline Person oldest(const std::vector<Person>& ps) {
  if (ps.empty()) throw std::invalid_argument("oldest of no people");
  return *std::max_element(ps.begin(), ps.end(), [](const Person& a, const Person& b) { return a.age < b.age; });
}
`,
	"people.py": `def name_of(p):
    assert type(p) is dict, type(p)
    return p["name"]
`,
}

// TestGeneratedCppStructs: C++ functions take and return generated
// structs, through the CLI and over MCP, with the values a user-written
// struct would carry.
func TestGeneratedCppStructs(t *testing.T) {
	p := build(t, cstructFiles)
	ada := `{"name":"Ada","age":36,"home":{"city":"London","zip":7},"past":[],"tags":["math"]}`
	bob := `{"name":"Bob","age":41,"home":{"city":"Paris","zip":7500},"past":[{"city":"Lyon","zip":6900}],"tags":[]}`
	p.okAll([]cliCase{
		{[]string{"birthday", ada},
			`{"name":"Ada","age":37,"home":{"city":"Bergen","zip":5003},"past":[{"city":"London","zip":7}],"tags":["math","older"]}` + "\n"},
		{[]string{"greet", bob}, `"Hello Bob of Paris 7500"` + "\n"},
		{[]string{"oldest", "[" + ada + "," + bob + "]"}, bob + "\n"},
		{[]string{"newcomer", "Cy"},
			`{"name":"Cy","age":1,"home":{"city":"Bergen","zip":5003},"past":[{"city":"Oslo","zip":150}],"tags":["older"]}` + "\n"},
		{[]string{"nameOf", bob}, `"Bob"` + "\n"},
	})
	if msg := p.fails(1, "oldest", "[]"); !strings.Contains(msg, "oldest of no people") {
		t.Errorf("oldest of no people: %q", msg)
	}

	p.toolsOK([]toolCall{
		{"greet", map[string]any{"_1": map[string]any{"name": "Ada", "age": 36, "home": map[string]any{"city": "London", "zip": 7}, "past": []any{}, "tags": []any{}}},
			`"Hello Ada of London 7"`},
		{"birthday", map[string]any{"_1": map[string]any{"name": "Bob", "age": 41, "home": map[string]any{"city": "Paris", "zip": 7500},
			"past": []any{map[string]any{"city": "Lyon", "zip": 6900}}, "tags": []any{}}},
			`{"name":"Bob","age":42,"home":{"city":"Bergen","zip":5003},"past":[{"city":"Lyon","zip":6900},{"city":"Paris","zip":7500}],"tags":["older"]}`},
		{"newcomer", map[string]any{"_1": "Cy"},
			`{"name":"Cy","age":1,"home":{"city":"Bergen","zip":5003},"past":[{"city":"Oslo","zip":150}],"tags":["older"]}`},
	})
	p.checkClean()
}

// TestGeneratedCppStructErrors: what cannot be generated stops the build
// with a message that says what to write instead.
func TestGeneratedCppStructErrors(t *testing.T) {
	tests := []struct{ name, from, to, want string }{
		{"a record without a C++ type", `record Cpp => Address = "struct"`, "",
			`record Address has no C++ type; map it to your struct with record Cpp => Address = "struct_name", or have one generated with record Cpp => Address = "struct"`},
		{"a field of the user's struct", `record Cpp => Address = "struct"`, `record Cpp => Address = "address_t"`,
			`record Person: its C++ struct is generated ("struct"), so its field home cannot be record Address, whose C++ type address_t comes from your header; map Address to "struct" too, or declare Person in your header`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := files{}
			for name, body := range cstructFiles {
				fs[name] = body
			}
			fs["main.loc"] = strings.Replace(fs["main.loc"], tc.from, tc.to, 1)
			if msg := makeFails(t, fs); !strings.Contains(msg, tc.want) {
				t.Errorf("nexus make: %q, want it to say %q", msg, tc.want)
			}
		})
	}
}
