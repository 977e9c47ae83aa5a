// The cost of format::check_zstd_frame against libzstd's frame API (zstd_decode_frame, the check included),
// one core, every frame of FILE, three rounds. Built: g++ -O3 -DNDEBUG -std=gnu++20 -I include check_cost.cpp -static -lzstd
#include <vyre/engine/zstd_host.hpp>
#include <fstream>
#include <iostream>
#include <chrono>
using namespace vyre;
static std::vector<std::uint8_t> rd(const std::string& p){std::ifstream in(p,std::ios::binary);return {std::istreambuf_iterator<char>(in),{}};}
int main(int argc,char**argv){
  auto d=rd(argv[1]); auto file=format::parse_zstd(d);
  for(int r=0;r<3;++r){
  auto t0=std::chrono::steady_clock::now(); int fl=0;
  for(auto&f:file.frames) fl+=format::check_zstd_frame(d,f).zero_sequences_in_two_bytes;
  auto t1=std::chrono::steady_clock::now();
  std::vector<std::uint8_t> st(file.staging_size); auto dctx=engine::detail::zstd_make_frame_dctx();
  for(auto&f:file.frames) engine::detail::zstd_decode_frame(dctx.get(),d,f,st);
  auto t2=std::chrono::steady_clock::now();
  std::cout<<"check "<<std::chrono::duration<double>(t1-t0).count()*1e3<<" ms; decode incl check "<<std::chrono::duration<double>(t2-t1).count()*1e3<<" ms "<<fl<<"\n";}
}
