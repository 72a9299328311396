//xfail:data-race
//--local_size=64 --num_groups=4
// nested_struct_tag.cl indexed by the local id alone: the groups write the same elements.
struct outer {
  int pad;
  struct u {
    int bias;
    int scale;
  } in;
};

__kernel void shift(__global int *data, struct outer o) {
  struct u k = o.in;
  size_t i = get_local_id(0);
  data[i] = data[i] * k.scale + o.in.bias;
}
