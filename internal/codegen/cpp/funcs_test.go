package cpp_test

import (
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/nexus-run/nexus/internal/codegen/sourced"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/pooltest"
	"github.com/nexus-run/nexus/manifest/types"
)

const higherOrder = `#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

inline std::int64_t add(std::int64_t a, std::int64_t b) { return a + b; }
inline bool longer(const std::string& s, std::int64_t n) { return static_cast<std::int64_t>(s.size()) > n; }
inline std::int64_t boom(std::int64_t x) {
  if (x == 0) throw std::runtime_error("zero");
  return x;
}
// Declared types other than the natural ones: int for Int.
inline std::int64_t apply_twice(const std::function<int(int)>& f, int x) { return f(f(x)); }
// A template takes the natural std::function.
template <class F>
std::int64_t apply_once(F f, std::int64_t x) { return f(x); }
`

// packed is v in msgpack, as the nexus captures an argument.
func packed(t *testing.T, v any) msgpack.RawMessage {
	t.Helper()
	b, err := msgpack.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFunctionArguments: a function argument reaches a C++ function as a
// std::function calling a function of the same pool, with the captured
// arguments and the caller's in slot order, and the prelude's loops run
// over it in the pool.
func TestFunctionArguments(t *testing.T) {
	I, S := types.IntType, types.StrType
	intFn := types.FuncOf(I, I)
	m := program(t, higherOrder, "",
		fn{Source: "add", Args: []*types.Type{I, I}, Return: I},                                                                                                                                   // 0
		fn{Source: "longer", Args: []*types.Type{S, I}, Return: types.BoolType},                                                                                                                   // 1
		fn{Source: "boom", Args: []*types.Type{I}, Return: I},                                                                                                                                     // 2
		fn{Source: "apply_twice", Args: []*types.Type{intFn, I}, Return: I},                                                                                                                       // 3
		fn{Source: "apply_once", Args: []*types.Type{intFn, I}, Return: I},                                                                                                                        // 4
		fn{Source: "morloc_map", Args: []*types.Type{intFn, types.ListOf(I)}, Return: types.ListOf(I), File: sourced.PreludeFile},                                                                 // 5
		fn{Source: "morloc_filter", Args: []*types.Type{types.FuncOf(types.BoolType, S), types.ListOf(S)}, Return: types.ListOf(S), File: sourced.PreludeFile},                                    // 6
		fn{Source: "morloc_fold", Args: []*types.Type{types.FuncOf(I, I, I), I, types.ListOf(I)}, Return: I, File: sourced.PreludeFile},                                                           // 7
		fn{Source: "morloc_find", Args: []*types.Type{types.FuncOf(types.BoolType, S), types.ListOf(S)}, Return: types.OptionalOf(S), File: sourced.PreludeFile},                                  // 8
		fn{Source: "morloc_partition", Args: []*types.Type{types.FuncOf(types.BoolType, S), types.ListOf(S)}, Return: types.TupleOf(types.ListOf(S), types.ListOf(S)), File: sourced.PreludeFile}, // 9
	)
	s, _ := pooltest.Supervise(t, m, pool.Options{})
	add3 := &types.FuncRef{ID: 0, Slots: []int{-1, 0}, Captured: []msgpack.RawMessage{packed(t, 3)}}
	plus10 := &types.FuncRef{ID: 0, Slots: []int{0, -1}, Captured: []msgpack.RawMessage{packed(t, 10)}}
	longerThan1 := &types.FuncRef{ID: 1, Slots: []int{0, -1}, Captured: []msgpack.RawMessage{packed(t, 1)}}
	longerThan5 := &types.FuncRef{ID: 1, Slots: []int{0, -1}, Captured: []msgpack.RawMessage{packed(t, 5)}}
	words := []string{"a", "bb", "ccc"}
	pooltest.CheckCalls(t, s, m, []pooltest.Case{
		{"user function, declared types", 3, []any{add3, int64(4)}, "10"},
		{"user template", 4, []any{plus10, int64(4)}, "14"},
		{"map, captured value second", 5, []any{plus10, []int64{1, 2}}, "[11,12]"},
		{"filter", 6, []any{longerThan1, words}, `["bb","ccc"]`},
		{"fold, no captured value", 7, []any{&types.FuncRef{ID: 0, Slots: []int{0, 1}}, int64(100), []int64{1, 2, 3}}, "106"},
		{"fold, arguments swapped", 7, []any{&types.FuncRef{ID: 0, Slots: []int{1, 0}}, int64(0), []int64{}}, "0"},
		{"find", 8, []any{longerThan1, words}, `"bb"`},
		{"find nothing", 8, []any{longerThan5, words}, "null"},
		{"partition", 9, []any{longerThan1, words}, `[["bb","ccc"],["a"]]`},
	})

	// A failure inside the function given says which function failed, inside which.
	_, err := pooltest.Call(t, s, m, 5, &types.FuncRef{ID: 2, Slots: []int{0}}, []int64{1, 0})
	if err == nil || !strings.Contains(err.Error(), "zero") || !strings.Contains(err.Error(), "boom (lib.hpp)") || !strings.Contains(err.Error(), "morloc_map (nexus_prelude.hpp)") {
		t.Errorf("a throwing function given to map: %v", err)
	}
	_, err = pooltest.Call(t, s, m, 5, &types.FuncRef{ID: 99, Slots: []int{0}}, []int64{1})
	if err == nil || !strings.Contains(err.Error(), "function 99, which this C++ pool does not have") {
		t.Errorf("a reference to a function the pool lacks: %v", err)
	}
	_, err = pooltest.Call(t, s, m, 5, &types.FuncRef{ID: 0, Slots: []int{0}}, []int64{1})
	if err == nil || !strings.Contains(err.Error(), "add takes 2 arguments, the function reference gives 1") {
		t.Errorf("a reference with too few slots: %v", err)
	}
}
