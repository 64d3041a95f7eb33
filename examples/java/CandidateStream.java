public class CandidateStream {
    public static int countVowels(String text) {
        return (int) text.toLowerCase().chars().filter(c -> "aeiou".indexOf(c) >= 0).count();
    }
}
