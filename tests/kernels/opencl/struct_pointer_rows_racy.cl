//xfail:data-race
//--local_size=64 --num_groups=4
// struct_pointer_rows.cl with row 0 set to the output as well: each work-item reads its
// neighbour's element, which the neighbour writes.
struct rows {
  __global int *row[3];
};

__kernel void gather(__global int *out, struct rows r) {
  size_t i = get_global_id(0);
  r.row[2] = out;
  r.row[0] = out;
  r.row[2][i] = r.row[0][(i + 1) % 256];
}
