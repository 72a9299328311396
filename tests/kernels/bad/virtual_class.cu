//pass
//--blockDim=64 --gridDim=1
// BAD INPUT: C++ classes with virtual methods are outside the supported CUDA subset.

struct Shape {
  __device__ virtual float area() const { return 0.0f; }
};

struct Square : Shape {
  float side;
  __device__ float area() const override { return side * side; }
};

__global__ void virtual_call(float *data) {
  Square sq;
  sq.side = data[threadIdx.x];
  const Shape &s = sq;
  data[threadIdx.x] = s.area();
}
