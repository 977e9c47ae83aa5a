// A sequences-only pass over every compressed block of FILE (the FSE states, the extra bits and the repeat
// offsets decoded, nothing executed), counting offsets of 0: what a host check for off0.bin.zst would cost.
// One core, three rounds, tables from format::plan_zstd_sections. Built: g++ -O3 -DNDEBUG -std=gnu++20 -I include sequences_pass.cpp -static
#include <vyre/format/zstd_frame.hpp>
#include <vyre/format/zstd_sections.hpp>
#include <vyre/util/little_endian.hpp>
#include <fstream>
#include <iostream>
#include <chrono>
#include <cstring>
using namespace vyre;
static std::vector<std::uint8_t> rd(const std::string& p){std::ifstream in(p,std::ios::binary);return {std::istreambuf_iterator<char>(in),{}};}
// fast backward reader
struct bwd { const std::uint8_t* p; std::int64_t left; std::size_t n;
  inline std::uint32_t read(std::uint32_t k){ left-=k; std::int64_t lo=left; if(lo<0){ // slow path
      std::uint64_t v=0; for(std::uint32_t i=0;i<k;++i){std::int64_t b=lo+i; if(b>=0) v|=std::uint64_t((p[b/8]>>(b%8))&1)<<i;} return (std::uint32_t)v;}
    std::uint64_t byte=lo/8; std::uint64_t w; if(byte+8<=n) std::memcpy(&w,p+byte,8); else {w=0; for(std::uint64_t i=0;byte+i<n;++i) w|=std::uint64_t(p[byte+i])<<(8*i);} 
    return (std::uint32_t)((w>>(lo%8)) & ((1ull<<k)-1)); } };
int main(int argc,char**argv){
  auto d=rd(argv[1]); auto file=format::parse_zstd(d);
  std::vector<std::size_t> which(file.frames.size()); for(size_t k=0;k<which.size();++k) which[k]=k;
  auto s=format::plan_zstd_sections(d,file,which,format::zstd_plan_options{1,format::zstd_default_max_plan_bytes,false});
  std::cout<<"frames "<<file.frames.size()<<" blocks "<<s.blocks.size()/compression::zstd_block_words<<" sequences "<<s.sequences<<"\n";
  namespace field=compression::zstd_block_field; const auto& tables=s.tables;
  for(int rep_=0;rep_<3;++rep_){
  auto t0=std::chrono::steady_clock::now(); std::uint64_t bad=0, sum=0;
  std::size_t nf=s.frame_count();
  for(std::size_t fi=0;fi<nf;++fi){ std::uint32_t first=s.frames[fi*compression::zstd_frame_words], nb=s.frames[fi*compression::zstd_frame_words+1];
    std::uint32_t rep[3]={1,4,8};
    for(std::uint32_t bi=0;bi<nb;++bi){ const std::uint32_t* rec=s.blocks.data()+(std::size_t(first)+bi)*compression::zstd_block_words;
      if((rec[field::kind]&3)!=2) continue; std::uint32_t nseq=rec[field::sequences]; if(!nseq) continue;
      std::uint32_t llt=rec[field::literal_length_table], oft=rec[field::offset_table], mlt=rec[field::match_length_table];
      const std::uint8_t* sp=d.data()+s.input_base+rec[field::sequences_at]; std::size_t sn=rec[field::sequences_size];
      bwd in{sp,(std::int64_t)sn*8-std::countl_zero(sp[sn-1])-1,sn};
      std::uint32_t ls=in.read(tables[llt]), os=in.read(tables[oft]), ms=in.read(tables[mlt]);
      const std::uint32_t lm=(1u<<tables[llt])-1, om=(1u<<tables[oft])-1, mm=(1u<<tables[mlt])-1;
      for(std::uint32_t i=0;i<nseq;++i){
        const std::uint32_t le=tables[llt+1+ls], oe=tables[oft+1+os], me=tables[mlt+1+ms];
        const std::uint32_t lv=tables[(le>>4)&63u], mv=tables[compression::zstd_match_values_at+((me>>4)&63u)];
        const std::uint32_t oc=(oe>>4)&31u; const std::uint32_t ofv=(1u<<oc)+in.read(oc);
        const std::uint32_t ml=(mv&0xFFFFFFu)+in.read((mv>>24)&31u); const std::uint32_t ll=(lv&0xFFFFFFu)+in.read((lv>>24)&31u);
        if(i+1<nseq){ ls=((le>>10)+in.read(le&15u))&lm; ms=((me>>10)+in.read(me&15u))&mm; os=((oe>>10)+in.read(oe&15u))&om; }
        std::uint32_t off;
        if(ofv>3){off=ofv-3; rep[2]=rep[1];rep[1]=rep[0];rep[0]=off;}
        else { std::uint32_t idx=ofv-1+(ll==0); if(idx==0) off=rep[0]; else { off= idx==3? rep[0]-1: rep[idx]; if(idx!=1) rep[2]=rep[1]; rep[1]=rep[0]; rep[0]=off; } }
        bad += off==0; sum+=ml;
      }
      bad += in.left!=0;
    }}
  auto t1=std::chrono::steady_clock::now();
  std::cout<<"check "<<std::chrono::duration<double>(t1-t0).count()*1e3<<" ms bad "<<bad<<" "<<sum<<"\n";}
}
