//pass
//--local_size=64 --num_groups=4
// A struct argument whose member's type is declared inside it and named by its tag
// (`struct u`, which C scopes like the outer one; `u` is also a letter of `struct`, which
// must not be taken for it).  Each work-item scales its own element.
struct outer {
  int pad;
  struct u {
    int bias;
    int scale;
  } in;
};

__kernel void shift(__global int *data, struct outer o) {
  struct u k = o.in;
  size_t i = get_global_id(0);
  data[i] = data[i] * k.scale + o.in.bias;
}
