// Helpers the example package's rules share: constraint macros, as package authors write them in
// a header of their own (og-parse follows this #include to learn them).
#pragma once

/// The op and its operand are 4-d float tensors.
#define EXAMPLE_IS_4D_FLOAT(X) AND(EQ(RANK_OF(X), 4), IS_FLOAT32(X))

/// Tile rows when the output is 4-d and taller than the graph option example_tile_rows (0: never).
/// (The split's shape functions make 4-d slices; DIM_HEIGHT of a 2-d op is its last dimension.)
#define EXAMPLE_TILE_ROWS OPTION_UINT("example_tile_rows")
#define EXAMPLE_NEEDS_TILING AND(EQ(RANK_OF("*"), 4), GT(EXAMPLE_TILE_ROWS, 0U), GT(DIM_HEIGHT("*"), EXAMPLE_TILE_ROWS))
