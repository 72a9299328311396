//pass
//--local_size=64 --num_groups=4
// A struct argument holding an array of pointers: each row its own buffer.  Row 2 is set to
// the output, and each work-item copies its own element of row 0 there.
struct rows {
  __global int *row[3];
};

__kernel void gather(__global int *out, struct rows r) {
  size_t i = get_global_id(0);
  r.row[2] = out;
  r.row[2][i] = r.row[0][i];
}
